import type { EndpointParams } from '../model/profile.ts';

/** A Google publisher model's resource URL under the project and location, to which a method is appended. */
export function vertexModelUrl(endpoint: EndpointParams, model: string): string {
  const { project, region } = endpoint;
  // A configuration mistake, not the client's: it must surface as the gateway's own error.
  if (!project || !region) throw new Error('A vertex-gemini endpoint needs a project and a region.');
  const path = [
    'projects',
    encodeURIComponent(project),
    'locations',
    encodeURIComponent(region),
    'publishers/google/models',
    encodeURIComponent(model),
  ].join('/');
  return `${endpoint.baseUrl}/${path}`;
}
