import { runConformance } from '../conformance/scenarios.ts';
import { anthropicConformanceFixtures } from './fixtures.ts';
import { anthropicAdapter } from './index.ts';

runConformance(anthropicAdapter, anthropicConformanceFixtures);
