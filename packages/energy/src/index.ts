/** The energy asset service's public surface: build the app, read its configuration, start it. */
export { type BuildOptions, buildApp } from './app.ts';
export { type Credentials, createUser } from './auth/credentials.ts';
export { type EnergyConfig, loadEnergyConfig } from './config.ts';
export { startEnergy } from './main.ts';
