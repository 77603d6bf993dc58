export type { Behaviour } from './faults.ts';
export { type ReceivedRequest, type Simulator, type SimulatorOptions, startSimulator } from './server.ts';
