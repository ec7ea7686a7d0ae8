import type { ApiKeyMode } from '../store/api-keys.js';
import { programMembers } from '../store/members.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';
import * as provisioning from './provisioning.js';

/**
 * A program's settings, API keys and members for its members (docs/api.md#workspace-settings): the
 * admin API's own functions, each behind the check that the viewer is an active member. A
 * non-member is refused before anything is read or changed.
 */
async function asMember<T>(deps: Deps, viewer: Viewer, programId: number, run: () => Promise<T>): Promise<T> {
  await deps.store.read((sql) => viewedProgram(deps.store, sql, viewer, programId));
  return run();
}

/** The program without its Stripe webhook signing secret, which stays with the admin. */
function withoutSecret({ webhookSecret: _secret, ...program }: Awaited<ReturnType<typeof provisioning.showProgram>>) {
  return program;
}

export const programSettings = (deps: Deps, viewer: Viewer, programId: number) =>
  asMember(deps, viewer, programId, async () => withoutSecret(await provisioning.showProgram(deps, programId)));

export const changeProgramSettings = (deps: Deps, viewer: Viewer, programId: number, changes: Omit<Partial<provisioning.NewProgram>, 'stripeApiKey'>) =>
  asMember(deps, viewer, programId, async () => withoutSecret(await provisioning.updateProgram(deps, programId, changes)));

export const listKeys = (deps: Deps, viewer: Viewer, programId: number) => asMember(deps, viewer, programId, () => provisioning.listApiKeys(deps, programId));

export const createKey = (deps: Deps, viewer: Viewer, programId: number, mode: ApiKeyMode) =>
  asMember(deps, viewer, programId, () => provisioning.createApiKey(deps, programId, mode));

export const retireKey = (deps: Deps, viewer: Viewer, programId: number, keyId: number) =>
  asMember(deps, viewer, programId, () => provisioning.retireApiKey(deps, programId, keyId));

export const listMembers = (deps: Deps, viewer: Viewer, programId: number) =>
  asMember(deps, viewer, programId, () =>
    deps.store.read(async (sql) =>
      (await programMembers(sql, programId)).map((m) => ({
        userId: m.user_id, email: m.email, status: m.status, createdAt: m.created_at.toISOString(), updatedAt: m.updated_at.toISOString(),
      })),
    ),
  );

export const setMember = (deps: Deps, viewer: Viewer, programId: number, email: string, status: 'active' | 'inactive') =>
  asMember(deps, viewer, programId, () => provisioning.setMembership(deps, programId, email, status));
