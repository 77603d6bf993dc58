import { runConformance } from '../conformance/scenarios.ts';
import { openAIConformanceFixtures } from '../openai/fixtures.ts';
import { azureOpenAIAdapter } from './index.ts';

runConformance(azureOpenAIAdapter, openAIConformanceFixtures);
