// What `npm start` prints once it serves: the address, how to begin, and the admin token only
// when this start generated it (a token from the environment or the secrets file is never shown).
import path from 'node:path';

export function startBanner(url: string, seconds: string, newAdminToken: string | null, dataDir: string): string {
  const lines = ['', `Marginal is ready at ${url}/v1 (started in ${seconds} s). API docs: ${url}/docs`];
  if (newAdminToken) {
    lines.push(
      '',
      `First start: the admin token is ${newAdminToken}`,
      `(kept in ${path.join(dataDir, 'instance-secrets.json')}; the CLI reads it from there).`,
    );
  }
  lines.push(
    '',
    'Create an organization and an API key, then call the API:',
    '  npm run cli -- orgs create --name "Acme"',
    '  npm run cli -- credits grant --org <organization_id> --amount 10000',
    '  npm run cli -- keys create --org <organization_id> --scopes usage:write,usage:read,costs:read,revenue:read,dimensions:read',
    `  curl -s ${url}/v1/ping -H "Authorization: Bearer <api_key>"`,
    '',
    'Invite the first owner, who then signs in with email and password (docs/people.md):',
    '  npm run cli -- users invite --org <organization_id> --email <email> --role owner',
    `  curl -s ${url}/v1/auth/invitations/accept -H "Content-Type: application/json" -d '{"token":"<token>","password":"<password>"}'`,
    '',
    'Ctrl-C stops everything.',
  );
  return lines.join('\n');
}
