import { Injectable, type OnModuleInit } from '@nestjs/common';
import { argon2id, hash, verify } from 'argon2';
import { IdentityConfig } from '../identity.config';

/**
 * D-39: passwords (their digests, see `passwordDigest`) under argon2id. An
 * unknown email is checked against a hash of nothing, so it costs what a
 * wrong password costs.
 */
@Injectable()
export class PasswordHasher implements OnModuleInit {
  private decoy = '';

  constructor(private readonly config: IdentityConfig) {}

  async onModuleInit(): Promise<void> {
    this.decoy = await this.hash('0'.repeat(64));
  }

  hash(digest: string): Promise<string> {
    return hash(digest, { type: argon2id, memoryCost: this.config.ARGON2_MEMORY_KIB, timeCost: this.config.ARGON2_PASSES, parallelism: 1 });
  }

  /** Whether `digest` matches `stored`; with no stored hash, the same work against the decoy and false. */
  async verify(stored: string | null | undefined, digest: string): Promise<boolean> {
    if (!stored) {
      await verify(this.decoy, digest).catch(() => false);
      return false;
    }
    return verify(stored, digest).catch(() => false);
  }
}
