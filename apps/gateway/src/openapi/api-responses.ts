import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { ErrorCode } from '@worktrack/contracts';

/** Where `@ApiErrors` leaves a route's own codes for the document builder (removed from the published document). */
export const ERROR_CODES_EXTENSION = 'x-worktrack-error-codes';

/**
 * D-1: the success body `{ "data": … }` of a route, `model` being a class
 * documented with `@ApiProperty` (`[Model]` for a list).
 */
export function ApiData(status: 200 | 201 | 202, model: Type | [Type], description: string): MethodDecorator {
  const [type, isArray] = Array.isArray(model) ? [model[0], true] : [model, false];
  const ref = { $ref: getSchemaPath(type) };
  return applyDecorators(
    ApiExtraModels(type),
    ApiResponse({
      status,
      description,
      schema: {
        type: 'object',
        required: ['data'],
        additionalProperties: false,
        properties: { data: isArray ? { type: 'array', items: ref } : ref },
      },
    }),
  );
}

/** D-1 for a page of a list: `{ "data": [Model…], "meta": { "cursor" } }`; `meta.cursor` fetches the next page. */
export const ApiPage = (model: Type, description: string): MethodDecorator => pageResponse(model, description, true);

/** D-1 for an object whose list pages: `{ "data": Model, "meta": { "cursor" } }`; `meta.cursor` fetches the rest. */
export const ApiDataPage = (model: Type, description: string): MethodDecorator => pageResponse(model, description, false);

function pageResponse(model: Type, description: string, isArray: boolean): MethodDecorator {
  const ref = { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model),
    ApiResponse({
      status: 200,
      description,
      schema: {
        type: 'object',
        required: ['data', 'meta'],
        additionalProperties: false,
        properties: {
          data: isArray ? { type: 'array', items: ref } : ref,
          meta: {
            type: 'object',
            required: ['cursor'],
            additionalProperties: false,
            properties: {
              cursor: { type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page.' },
            },
          },
        },
      },
    }),
  );
}

/**
 * The D-2 codes a route raises itself (a scope or role check, a missing
 * resource, a state conflict). The ones every /v1 route can give — 401, 429,
 * 500, 503, and for a body or parameters 400/413/415 — are added by the
 * document builder; it groups all of them by HTTP status (`httpStatusOf`).
 */
export const ApiErrors = (...codes: ErrorCode[]): MethodDecorator => ApiExtension(ERROR_CODES_EXTENSION, codes);

/** Where `@ApiPublic` marks a /v1 route that takes no bearer credential (signing in). */
export const PUBLIC_EXTENSION = 'x-worktrack-public';

/** A /v1 route without a bearer credential (D-38 … D-41 sign-in routes): published with `security: []`. */
export const ApiPublic = (): MethodDecorator => ApiExtension(PUBLIC_EXTENSION, true);
