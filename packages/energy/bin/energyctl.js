#!/usr/bin/env node
// The energy service's admin command; the implementation is TypeScript, run by Node 24 directly.
import { energyctl } from '../src/cli/energyctl.ts';

process.exitCode = await energyctl(process.argv.slice(2), process.env, console.log, console.error);
