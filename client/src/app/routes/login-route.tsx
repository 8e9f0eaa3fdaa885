import { LoginScreen } from '@/features/auth/login-screen';

export default function LoginRoute() {
  return <LoginScreen />;
}
