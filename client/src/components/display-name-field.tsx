import { LIMITS } from '@shared/constants';
import { Input } from '@/components/ui/input';

/** The display name input with its label and, when there is one, the problem under it (profile card, setup wizard). */
export function DisplayNameField({
  id,
  value,
  problem,
  onChange,
}: {
  id: string;
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}) {
  const problemId = `${id}-problem`;
  return (
    <div className="grid gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-zinc-200">
        Display name
      </label>
      <Input
        id={id}
        value={value}
        maxLength={LIMITS.displayNameMaxLength}
        autoComplete="nickname"
        required
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? problemId : undefined}
        onChange={(event) => onChange(event.target.value)}
      />
      {problem ? (
        <p id={problemId} className="text-sm text-red-300">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
