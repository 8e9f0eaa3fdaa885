import { SetupPlaceholder } from '@/features/setup/setup-placeholder';

export default function SetupRoute() {
  return <SetupPlaceholder />;
}
