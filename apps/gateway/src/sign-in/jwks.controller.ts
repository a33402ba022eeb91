import { Controller, Get, Header } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ErrorCode, type PublicJwkV1 } from '@worktrack/contracts';
import { ApiErrors } from '../openapi/api-responses';
import { SessionKeys } from '../auth/session-keys';

/**
 * D-40: the public keys of worktrack's session JWTs, RFC 7517 (`{ keys }`,
 * not wrapped in `data`), outside /v1 and public; whoever verifies a session
 * JWT picks the key by its `kid`.
 */
@ApiTags('Sign-in')
@Controller('.well-known')
export class JwksController {
  constructor(private readonly keys: SessionKeys) {}

  @Get('jwks.json')
  @Header('Cache-Control', 'public, max-age=300')
  // A body sent with the GET is judged like any body (http/input-guard.ts): its encoding and media type, its size.
  @ApiErrors(ErrorCode.UNSUPPORTED_MEDIA_TYPE, ErrorCode.PAYLOAD_TOO_LARGE)
  @ApiOperation({
    summary: 'The session JWTs’ public keys',
    description: 'RFC 7517 JSON Web Key Set: public EC P-256 keys, each with its `kid`.',
  })
  @ApiResponse({
    status: 200,
    description: 'The key set.',
    schema: {
      type: 'object',
      required: ['keys'],
      properties: {
        keys: {
          type: 'array',
          items: {
            type: 'object',
            required: ['kty', 'crv', 'x', 'y', 'kid', 'alg', 'use'],
            properties: {
              kty: { type: 'string', enum: ['EC'] },
              crv: { type: 'string', enum: ['P-256'] },
              x: { type: 'string', examples: ['f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU'] },
              y: { type: 'string', examples: ['x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0'] },
              kid: { type: 'string', examples: ['2026-11'] },
              alg: { type: 'string', enum: ['ES256'] },
              use: { type: 'string', enum: ['sig'] },
            },
          },
        },
      },
    },
  })
  jwks(): Promise<{ keys: PublicJwkV1[] }> {
    return this.keys.jwks();
  }
}
