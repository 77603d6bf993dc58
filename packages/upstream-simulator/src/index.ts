export type { Behaviour } from './faults.ts';
export { type AzureResourceOptions, DEFAULT_AZURE_RESOURCE } from './apis/azure-resource.ts';
export { type ReceivedRequest, type Simulator, type SimulatorOptions, startSimulator } from './server.ts';
export {
  credentialEnv,
  generateCredentials,
  type GoogleServiceAccount,
  type SimCredentials,
} from './credentials.ts';
