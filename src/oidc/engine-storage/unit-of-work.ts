/**
 * Everything one request does with the store on the engine's behalf (the adapter hands every call here):
 * - **reads handed over**: a row the request has read already (UserInfo's access token, found to pick the
 *   provider) answers the engine's next find of it, once, instead of a second query;
 * - **unchanged saves**: the engine saves the session again at the end of every request that carries it and the
 *   grant at every authorization, mostly as they were read; a save that changes nothing is skipped
 *   (unchanged-save.ts);
 * - **the write batch**: at the token and authorization endpoints the saves and the consume are noted and written
 *   together in one statement once the engine has answered, before the answer leaves (`commit`). The consume
 *   still decides: when it lost, nothing is written. A token or code the client receives is always stored. Any
 *   other write the engine makes mid-request sends what is noted first, so the database sees its order;
 * - **a code or refresh token used twice** (`refuseReuse`): the one rule, batched or not.
 *
 * One unit of work per request, on the request's Koa context, which the engine reaches as `Provider.ctx`.
 */
import Provider, { errors } from 'oidc-provider';
import type { Context } from 'koa';
import type { OidcPayload, Store } from '../../store/contract.js';
import { hasTrait, rowKey } from '../../store/oidc-models.js';
import { payloadJson } from '../../store/payload-json.js';
import { changesNothing } from './unchanged-save.js';

export type Row = Omit<OidcPayload, 'consumed_at'>;

export interface UnitOfWorkOptions {
  /** Note the batched models' saves and the consume, to be written by `commit` (token and authorization endpoints). */
  batch?: boolean;
  /**
   * The request redeems the single-use rows it reads (the token endpoint: a code or refresh token is read in order
   * to be consumed). Memory may then answer the read; the consume decides (contract.ts, `findToRedeem`).
   */
  redeems?: boolean;
}

export class UnitOfWork {
  private readonly handedOver = new Map<string, OidcPayload>();
  /** The JSON of the re-saved models' rows as read or written (unchanged-save.ts). */
  private readonly stored = new Map<string, string>();
  /** The grant of each single-use row read: what a lost consume ends. */
  private readonly grantOf = new Map<string, string | null>();
  private batch?: { consume?: { model: string; id: string }; rows: Map<string, Row> };

  constructor(
    private readonly store: Store,
    private readonly options: UnitOfWorkOptions = {},
  ) {
    if (options.batch) this.batch = { rows: new Map() };
  }

  /** `row`, read by this request already, answers the engine's next find of it (once). */
  handOver(row: OidcPayload): void {
    this.handedOver.set(rowKey(row.model, row.id), row);
  }

  async find(model: string, id: string): Promise<OidcPayload | undefined> {
    const key = rowKey(model, id);
    const noted = this.batch?.rows.get(key);
    if (noted) return { ...noted, consumed_at: null };
    let row = this.handedOver.get(key);
    if (row) this.handedOver.delete(key);
    else {
      const { oidcPayloads } = this.store;
      const now = new Date();
      row = this.options.redeems ? await oidcPayloads.findToRedeem(model, id, now) : await oidcPayloads.find(model, id, now);
    }
    return this.read(row);
  }

  async findByUid(model: string, uid: string): Promise<OidcPayload | undefined> {
    return this.read(await this.store.oidcPayloads.findByUid(model, uid, new Date()));
  }

  findByUserCode(model: string, userCode: string): Promise<OidcPayload | undefined> {
    return this.store.oidcPayloads.findByUserCode(model, userCode, new Date());
  }

  async save(row: Row): Promise<void> {
    const key = rowKey(row.model, row.id);
    if (hasTrait(row.model, 'resaved')) {
      const stored = this.stored.get(key);
      if (stored !== undefined && changesNothing(stored, row.payload)) return;
      this.stored.set(key, payloadJson(row.payload));
    }
    if (this.batch && hasTrait(row.model, 'batched')) {
      this.batch.rows.set(key, row);
      return;
    }
    await this.commit();
    await this.store.oidcPayloads.upsert(row);
  }

  async consume(model: string, id: string): Promise<void> {
    const singleUse = hasTrait(model, 'singleUse');
    if (singleUse && this.batch && !this.batch.consume) {
      this.batch.consume = { model, id };
      return;
    }
    await this.commit();
    const won = await this.store.oidcPayloads.consume(model, id, new Date());
    if (!won && singleUse) await this.refuseReuse(this.grantOf.get(rowKey(model, id)));
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.commit();
    await this.store.oidcPayloads.destroy(model, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.commit();
    await this.store.oidcPayloads.revokeByGrantId(grantId);
  }

  /** Writes what is noted, in one statement; a lost consume writes nothing and ends the grant (`refuseReuse`). */
  async commit(): Promise<void> {
    const batch = this.batch;
    if (!batch || (!batch.consume && !batch.rows.size)) return;
    const { consume } = batch;
    const rows = [...batch.rows.values()];
    batch.consume = undefined;
    batch.rows = new Map();
    if ((await this.store.oidcPayloads.redeem(consume, rows, new Date())).won) return;
    await this.refuseReuse(this.grantOf.get(rowKey(consume!.model, consume!.id)) ?? rows.find((row) => row.grant_id)?.grant_id);
  }

  /** Forgets what is noted: the engine refused the request, so nothing it noted was issued. */
  discard(): void {
    if (this.batch) this.batch = { rows: new Map() };
  }

  /**
   * A code or refresh token whose consume was lost had been redeemed already — here, or at another replica whose
   * consume this one may not have heard of. As the engine does when it finds such a row consumed (RFC 9700
   * §4.14.2, §2.2.2), the grant ends with every token issued from it, and the client gets invalid_grant.
   */
  private async refuseReuse(grantId: string | null | undefined): Promise<never> {
    if (grantId) {
      await this.store.transaction(async (tx) => {
        await tx.oidcPayloads.revokeByGrantId(grantId);
        await tx.oidcPayloads.destroy('Grant', grantId);
      });
    }
    throw new errors.InvalidGrant('grant already used');
  }

  private read(row: OidcPayload | undefined): OidcPayload | undefined {
    if (!row) return row;
    const key = rowKey(row.model, row.id);
    if (hasTrait(row.model, 'resaved')) this.stored.set(key, payloadJson(row.payload));
    if (hasTrait(row.model, 'singleUse')) this.grantOf.set(key, row.grant_id);
    return row;
  }
}

const UNIT_OF_WORK = Symbol('unit of work');
type WithUnitOfWork = { [UNIT_OF_WORK]?: UnitOfWork };

/** Opens this request's unit of work (before the engine runs). */
export function openUnitOfWork(ctx: Context, store: Store, options: UnitOfWorkOptions): UnitOfWork {
  return ((ctx.state as WithUnitOfWork)[UNIT_OF_WORK] = new UnitOfWork(store, options));
}

/**
 * The unit of work of the request the engine is serving (`Provider.ctx`), opened on first use when the
 * dispatcher did not open one; outside any request, one for this call alone.
 */
export function unitOfWorkOf(store: Store, ctx: Context | undefined = Provider.ctx): UnitOfWork {
  if (!ctx) return new UnitOfWork(store);
  const state = ctx.state as WithUnitOfWork;
  return (state[UNIT_OF_WORK] ??= new UnitOfWork(store));
}
