#!/usr/bin/env node
// Runs on the repository's Node 24 (node_modules/.bin is first on PATH under npx/npm scripts).
import { main } from '../src/cli/gatewayctl.ts';

process.exitCode = await main(process.argv.slice(2));
