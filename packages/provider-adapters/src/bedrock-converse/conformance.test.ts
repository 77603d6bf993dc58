import { runConformance } from '../conformance/scenarios.ts';
import { bedrockConformanceFixtures } from './fixtures.ts';
import { bedrockConverseAdapter } from './index.ts';

runConformance(bedrockConverseAdapter, bedrockConformanceFixtures);
