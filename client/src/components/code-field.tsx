import { EMAIL_CODE_LENGTH } from '@shared/schemas/sign-in';
import type { ComponentProps } from 'react';
import { cn } from '@/lib/cn';
import { Input } from './ui/input';

/** Why an emailed code cannot be sent yet, or null when it has the right shape. */
export function codeProblem(code: string): string | null {
  return new RegExp(`^\\d{${EMAIL_CODE_LENGTH}}$`).test(code)
    ? null
    : `Enter the ${EMAIL_CODE_LENGTH}-digit code from the email.`;
}

/**
 * The field for an emailed code (sign-in, adding an address, confirming it is you): digits only, as
 * many as a code has, and the phone's keyboard offers the code from the message.
 */
export function CodeField({
  value,
  onValueChange,
  className,
  ...props
}: Omit<ComponentProps<'input'>, 'value' | 'onChange'> & { value: string; onValueChange: (code: string) => void }) {
  return (
    <Input
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="\d*"
      maxLength={EMAIL_CODE_LENGTH}
      placeholder="123456"
      className={cn('text-center text-lg tracking-[0.5em]', className)}
      value={value}
      onChange={(event) => onValueChange(event.target.value.replace(/\D/g, '').slice(0, EMAIL_CODE_LENGTH))}
      {...props}
    />
  );
}
