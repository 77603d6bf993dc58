import { runConformance } from '../conformance/scenarios.ts';
import { openAIConformanceFixtures } from '../openai/fixtures.ts';
import { openAICompatibleAdapter } from './index.ts';

runConformance(openAICompatibleAdapter, openAIConformanceFixtures);
