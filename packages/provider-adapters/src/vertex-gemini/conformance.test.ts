import { runConformance } from '../conformance/scenarios.ts';
import { vertexGeminiConformanceFixtures } from './fixtures.ts';
import { vertexGeminiAdapter } from './index.ts';

runConformance(vertexGeminiAdapter, vertexGeminiConformanceFixtures);
