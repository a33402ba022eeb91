import { Injectable } from '@nestjs/common';
import { DataSource, LessThan } from 'typeorm';
import { OidcFlowEntity } from '../entities/oidc-flow.entity';

/** D-41: single sign-ons in flight, by the hash of their browser binding. */
@Injectable()
export class OidcFlowsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Stores a flow (a browser that starts again replaces its earlier one) and drops expired ones. */
  async put(flow: Omit<OidcFlowEntity, 'createdAt'>): Promise<void> {
    const manager = this.dataSource.manager;
    await manager.delete(OidcFlowEntity, { expiresAt: LessThan(new Date()) });
    await manager.upsert(OidcFlowEntity, flow, ['bindingHash']);
  }

  /** The flow of this binding, removed in the same statement: of two callbacks with one binding only one gets it. */
  async take(bindingHash: Buffer): Promise<OidcFlowEntity | null> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .delete()
      .from(OidcFlowEntity)
      .where('binding_hash = :bindingHash', { bindingHash })
      .returning('*')
      .execute();
    const row = (result.raw as Array<Record<string, unknown>>)[0];
    if (!row) return null;
    return {
      bindingHash,
      provider: row.provider as string,
      state: row.state as string,
      nonce: row.nonce as string,
      codeVerifier: row.code_verifier as string,
      returnTo: row.return_to as string,
      expiresAt: row.expires_at as Date,
      createdAt: new Date(0),
    };
  }
}
