import { INTENT_INFO, INTENTS, type Intent } from '@shared/constants';
import { cn } from '@/lib/cn';

interface IntentSwitcherProps {
  value: Intent;
  onChange: (intent: Intent) => void;
  disabled?: boolean;
  className?: string;
}

/** Three segments (Dating / Social / Network); a pill in the intent's colour slides to the selected one. */
export function IntentSwitcher({ value, onChange, disabled, className }: IntentSwitcherProps) {
  const index = INTENTS.indexOf(value);
  return (
    <fieldset
      aria-label="Intent"
      className={cn('relative grid grid-cols-3 rounded-full border border-white/10 bg-white/[0.04] p-1', className)}
    >
      <span
        aria-hidden="true"
        className="absolute inset-y-1 left-1 w-[calc((100%-0.5rem)/3)] rounded-full shadow-lg transition-[transform,background-color] duration-300 ease-out motion-reduce:transition-none"
        style={{ transform: `translateX(${index * 100}%)`, backgroundColor: INTENT_INFO[value].color }}
      />
      {INTENTS.map((intent) => {
        const selected = intent === value;
        return (
          <button
            key={intent}
            type="button"
            aria-pressed={selected}
            disabled={disabled}
            onClick={() => {
              if (!selected) onChange(intent);
            }}
            className={cn(
              'relative h-11 rounded-full text-sm font-semibold transition-colors disabled:opacity-60',
              selected ? 'text-white' : 'text-zinc-400 hover:text-zinc-200',
            )}
          >
            {INTENT_INFO[intent].label}
          </button>
        );
      })}
    </fieldset>
  );
}
