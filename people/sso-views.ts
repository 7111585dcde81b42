// Single sign-on's wire shapes: the settings as answered (never the client secret) and the
// redirect URI to register at the provider.
import type { Role } from '../core/auth/roles.js';
import type { SsoConfigurationRow } from './sso.store.js';

export interface SsoConfigurationView {
  organization_id: string;
  issuer: string;
  client_id: string;
  /** Always true: the secret is stored encrypted and never answered back. */
  client_secret_set: boolean;
  allowed_domains: string[];
  default_role: Role;
  /** Register this as the client's redirect URI at the provider. */
  redirect_uri: string;
  /** Where a browser starts signing in to this organization. */
  sign_in_url: string;
  created_at: string;
  updated_at: string;
}

export function ssoCallbackUrl(origin: string): string {
  return `${origin}/v1/auth/sso/callback`;
}

export function ssoConfigurationView(row: SsoConfigurationRow, origin: string): SsoConfigurationView {
  return {
    organization_id: row.organization_id,
    issuer: row.issuer,
    client_id: row.client_id,
    client_secret_set: true,
    allowed_domains: row.allowed_domains,
    default_role: row.default_role,
    redirect_uri: ssoCallbackUrl(origin),
    sign_in_url: `${origin}/v1/auth/sso/start?organization_id=${row.organization_id}`,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
