/**
 * Every client API the gateway serves, one descriptor each (its folder's index.ts). Adding a
 * front door is its folder plus one line here (docs/architecture.md, "Add a front door").
 * Embeddings, another kind of call on the same pipeline stages, is a route of its own
 * (`embeddingsRoutes`), registered beside these.
 */
import type { FrontDoor } from '../pipeline/front-door.ts';
import { chatCompletions } from './chat-completions/index.ts';
import { geminiV1, geminiV1beta } from './gemini/index.ts';
import { messages } from './messages/index.ts';
import { responses } from './responses/index.ts';

export const FRONT_DOORS: readonly FrontDoor[] = [
  chatCompletions,
  messages,
  responses,
  // Gemini's API under its two versions, each a prefix with its own error envelope.
  geminiV1beta,
  geminiV1,
];

export { embeddingsRoutes } from './embeddings/index.ts';
export { type FrontDoorsDeps, frontDoorRoutes } from './register.ts';
