// An invitation's link (/#/accept-invitation?token=…): the person chooses a password (POST
// /v1/auth/invitations/accept), then is signed in with it. A person who already has an account
// types that account's password and gains the organization.
import { useMutation } from '@tanstack/react-query';
import { acceptInvitation, signIn } from '../../api/person-session.js';
import type { SessionView } from '../../api/types.js';
import { NewPasswordForm } from './NewPasswordForm.js';

export function AcceptInvitationPage({ token, onSession }: { token: string; onSession: (session: SessionView) => void }) {
  const accept = useMutation({
    mutationFn: async (password: string) => {
      const accepted = await acceptInvitation(token, password);
      return signIn(accepted.email, password);
    },
    onSuccess: onSession,
  });
  return (
    <NewPasswordForm
      name="accept-invitation"
      title="Join your organization"
      intro="Choose a password of 12 to 256 characters. If you already have an account with this email, type its password: the organization is added to it."
      submitLabel="Accept the invitation"
      save={accept}
    />
  );
}
