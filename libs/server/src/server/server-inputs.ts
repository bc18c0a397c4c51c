/**
 * What the server takes from code: a seed document, a workload-identity
 * trust, a flag and a flag's patch, in the shapes the admin API and the
 * seed file use.
 *
 * @module
 */
import type { AbRule, ConfigValue, TenantState, TrustDefinition } from '../domain/model.js';
import type { AsJson, Assignable, Holds } from '../json/json-shape.js';
import type { SeedFormInput, TrustInput } from '../seed/seed-schema.js';

/** A seed document (PROTOCOL §11), for seeds written in code. */
export interface VaneServerSeed {
  /** The JSON Schema of seed files, for editors (`./vane-seed.schema.json` beside the demo seed); ignored. */
  $schema?: string;
  tenant?: Partial<TenantState>;
  /** Projects by slug; a project a service names need not be listed. */
  projects?: Record<string, { /** RFC 3339. */ created_at?: string }>;
  services?: Record<
    string,
    {
      /** The project's slug. @default 'default' */
      project?: string;
      kind?: string;
      keys?: string[];
      revoked_keys?: string[];
      configs?: Record<string, ConfigValue>;
      flags?: Record<string, VaneServerFlagInput>;
      secrets?: Record<
        string,
        { type?: 'text' | 'file'; value: string } | { type?: 'text' | 'file'; versions: string[] }
      >;
      /** Workload-identity trusts by name (PROTOCOL §8). */
      trusts?: Record<string, VaneServerTrustInput>;
    }
  >;
}

/**
 * A workload-identity trust as the seed and the admin API take it. Each
 * maps a platform identity to its service and one key type.
 */
export type VaneServerTrustInput =
  | {
      provider: 'kubernetes' | 'gcp' | 'azure';
      /** The `iss` the platform JWT must carry. */
      issuer: string;
      /** The `aud` the platform JWT must carry. */
      audience: string;
      /** Allowed `sub` claims (e.g. `system:serviceaccount:shop:api`). */
      subjects: string[];
      /** Inline JSON Web Key Set; give this or `jwks_url`. */
      jwks?: { keys: Array<Record<string, unknown>> };
      /** URL of the JSON Web Key Set; give this or `jwks`. */
      jwks_url?: string;
      /** Whether a session acts as a secret or a public key. */
      key_type: 'secret' | 'public';
    }
  | {
      provider: 'aws';
      /** Where the signed GetCallerIdentity is forwarded. @default 'https://sts.amazonaws.com' */
      sts_endpoint?: string;
      /** Allowed IAM role (or user) ARNs; an assumed-role session counts as its role. */
      role_arns: string[];
      /** When set, the signed request must carry a signed `x-vane-audience` header of this value. */
      audience?: string;
      /** Whether a session acts as a secret or a public key. */
      key_type: 'secret' | 'public';
    };

/** A flag as the admin API takes it. */
export interface VaneServerFlagInput {
  is_enabled: boolean;
  /** RFC 3339; null or absent for unbounded. */
  starts_at?: string | null;
  /** RFC 3339; null or absent for unbounded. */
  ends_at?: string | null;
  /** An A/B rule; `cohorts` may be left out (none). */
  ab?: (Omit<AbRule, 'cohorts'> & { cohorts?: AbRule['cohorts'] }) | null;
}

/** A partial update of a flag: the members given change, the others stay. */
export interface VaneServerFlagPatch {
  is_enabled?: boolean;
  /** RFC 3339, or null to remove the start of the schedule. */
  starts_at?: string | null;
  /** RFC 3339, or null to remove the end of the schedule. */
  ends_at?: string | null;
  /** A new A/B rule (as {@link VaneServerFlagInput} takes it), or null to remove it. */
  ab?: VaneServerFlagInput['ab'];
}

/**
 * The seed as code gives it and the seed schema (`seed/seed-schema.ts`,
 * published as `seeds/vane-seed.schema.json`) accept the same documents:
 * this fails to compile when one of them gains, loses or changes a member.
 */
export type VaneServerSeedMatchesItsSchema = [
  Holds<Assignable<AsJson<VaneServerSeed>, AsJson<SeedFormInput>>>,
  Holds<Assignable<AsJson<SeedFormInput>, AsJson<VaneServerSeed>>>,
];

/**
 * A trust as code gives it and the trust schema (`seed/seed-schema.ts`,
 * which the published JSON Schema and the seed check) accept the same
 * trusts, and every trust the server holds (`TrustDefinition`, as the admin
 * API answers it) can be given back: this fails to compile otherwise.
 */
export type VaneServerTrustInputMatchesItsSchema = [
  Holds<Assignable<AsJson<VaneServerTrustInput>, AsJson<TrustInput>>>,
  Holds<Assignable<AsJson<TrustInput>, AsJson<VaneServerTrustInput>>>,
  Holds<Assignable<TrustDefinition, VaneServerTrustInput>>,
];
