import type { MigrationInterface, QueryRunner } from 'typeorm';
import { publishEveryTokenState } from '../../tokens/token-states';

/**
 * D-37: the tokens that exist when `identity.tokens` is introduced go to it
 * once, through the outbox (the running service's relay publishes them), so
 * the gateway replicas' registry of token ids is complete from the start.
 * Tokens minted or revoked later are published by the change itself.
 */
export class IdentityTokenStates1766000000000 implements MigrationInterface {
  name = 'IdentityTokenStates1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await publishEveryTokenState(q.manager);
  }

  async down(): Promise<void> {
    // Published facts are not taken back.
  }
}
