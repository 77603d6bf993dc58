import { runConformance } from '../conformance/scenarios.ts';
import { openAIConformanceFixtures } from './fixtures.ts';
import { openAIAdapter } from './index.ts';

runConformance(openAIAdapter, openAIConformanceFixtures);
