import { PrivacyScreen } from '@/features/legal/privacy-screen';

/** Privacy Policy (/privacy): public, signed in or not. */
export default function PrivacyRoute() {
  return <PrivacyScreen />;
}
