/**
 * Every client API the gateway serves, one descriptor each (its folder's index.ts). Adding a
 * front door is its folder plus one line here (docs/architecture.md, "Add a front door").
 */
import type { FrontDoor } from '../pipeline/front-door.ts';
import { chatCompletions } from './chat-completions/index.ts';
import { messages } from './messages/index.ts';
import { responses } from './responses/index.ts';

export const FRONT_DOORS: readonly FrontDoor[] = [chatCompletions, messages, responses];

export { type FrontDoorsDeps, frontDoorRoutes } from './register.ts';
