import { act, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppProviders } from '@/app/providers';
import { toast } from '@/lib/toast';

describe('Toaster', () => {
  it('shows one toast at a time: the newest replaces the current one', async () => {
    render(<AppProviders>{null}</AppProviders>);
    act(() => {
      toast({ title: 'First' });
    });
    await screen.findByText('First');
    act(() => {
      toast({ title: 'Second', description: 'Newest wins', variant: 'destructive' });
    });
    await screen.findByText('Second');
    expect(screen.queryByText('First')).toBeNull();
    expect(screen.getByText('Second').closest('[data-variant]')?.getAttribute('data-variant')).toBe('destructive');
  });

  it('renders the notifications region for the F8 hotkey', () => {
    render(<AppProviders>{null}</AppProviders>);
    expect(screen.getByRole('region', { name: /Notifications \(F8\)/ })).toBeTruthy();
  });
});
