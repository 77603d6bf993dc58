import { runConformance } from '../conformance/scenarios.ts';
import { vertexClaudeConformanceFixtures } from './fixtures.ts';
import { vertexClaudeAdapter } from './index.ts';

runConformance(vertexClaudeAdapter, vertexClaudeConformanceFixtures);
