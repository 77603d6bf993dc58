import { runConformance } from '../conformance/scenarios.ts';
import { geminiConformanceFixtures } from './fixtures.ts';
import { geminiAdapter } from './index.ts';

runConformance(geminiAdapter, geminiConformanceFixtures);
