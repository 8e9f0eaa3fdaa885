import { TermsScreen } from '@/features/legal/terms-screen';

/** Terms of Service (/terms): public, signed in or not. */
export default function TermsRoute() {
  return <TermsScreen />;
}
