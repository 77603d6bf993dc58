import type { FastifyInstance } from 'fastify';
import { elevatorExample, elevatorInput, elevatorRepresentation } from '../resources/elevator.ts';
import type { RouteContext } from './context.ts';
import { nestedResourceRoutes } from './nested-resource.ts';

/** Elevators of a building, so operations have something to link to. */
export function elevatorRoutes(app: FastifyInstance, context: RouteContext): void {
  nestedResourceRoutes(app, context, {
    plural: 'elevators',
    tag: 'elevators',
    wrapper: 'elevator',
    representation: elevatorRepresentation,
    input: elevatorInput,
    example: elevatorExample,
    inputExample: { name: 'Passenger car A', manufacturer: 'Otis', capacity_lbs: 3500, floors_served: 12 },
    repository: context.elevators,
  });
}
