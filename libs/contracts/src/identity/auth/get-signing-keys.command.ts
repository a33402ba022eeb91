import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsString, MaxLength, ValidateNested } from 'class-validator';
import { defineCommand } from '../../message';
import { PublicJwkV1 } from './browser-session';

/** What the gateway asks for: the whole key set, typically because a token named a `kid` it did not know. */
export class SigningKeysQueryV1 {
  @IsString() @MaxLength(128) reason!: string;
}

/** D-40: the public keys of the session JWTs (RFC 7517), the signing key first; what the gateway serves at /.well-known/jwks.json. */
export class SigningKeysV1 {
  @IsArray() @ValidateNested({ each: true }) @Type(() => PublicJwkV1) keys!: PublicJwkV1[];
  /** The `iss` identity writes (the gateway checks it). */
  @IsString() issuer!: string;
}
export const GetSigningKeys = defineCommand({
  type: 'identity.auth.signing-keys.get',
  version: 1,
  topic: 'identityCommands',
  payload: SigningKeysQueryV1,
  result: SigningKeysV1,
});
