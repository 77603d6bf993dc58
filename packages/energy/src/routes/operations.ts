import type { FastifyInstance } from 'fastify';
import type { FieldErrors } from '../input/fields.ts';
import {
  operationExample,
  operationInput,
  operationInputExample,
  operationRepresentation,
} from '../resources/operation.ts';
import type { RouteContext } from './context.ts';
import { nestedResourceRoutes } from './nested-resource.ts';

/** The spec's operation endpoints; `elevator_id` must name an elevator of the same building. */
export function operationRoutes(app: FastifyInstance, context: RouteContext): void {
  nestedResourceRoutes(app, context, {
    plural: 'operations',
    tag: 'building operations',
    wrapper: 'operation',
    representation: operationRepresentation,
    input: operationInput,
    example: operationExample,
    inputExample: operationInputExample,
    repository: context.operations,
    async validate(buildingId, values) {
      const errors: FieldErrors = {};
      const elevatorId = values.elevator_id;
      if (typeof elevatorId === 'number' && !(await context.elevators.belongsTo(buildingId, elevatorId))) {
        errors.elevator_id = ['must name an elevator of the same building'];
      }
      return errors;
    },
  });
}
