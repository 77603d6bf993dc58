/**
 * Every client API the gateway serves, one descriptor each (its folder's index.ts). Adding a
 * front door is its folder plus one line here (docs/architecture.md, "Add a front door").
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

export { type FrontDoorsDeps, frontDoorRoutes } from './register.ts';
