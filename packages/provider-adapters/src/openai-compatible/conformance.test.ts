import { runConformance } from '../conformance/scenarios.ts';
import { openAIConformanceFixtures } from './fixtures.ts';
import { openAICompatibleAdapter } from './index.ts';

runConformance(openAICompatibleAdapter, openAIConformanceFixtures);
