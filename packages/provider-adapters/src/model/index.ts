export type * from './content.ts';
export * from './profile.ts';
export type * from './request.ts';
export type * from './response.ts';
export * from './tool-call-id.ts';
export * from './usage.ts';
export type * from './embeddings.ts';
export * from './meters.ts';
