import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';

/** Where privacy questions and export or deletion requests go (no in-app export or deletion yet). */
export const PRIVACY_EMAIL = 'privacy@podmatch.example';

/** When the texts last changed; shown under each title. */
export const LEGAL_UPDATED = '27 November 2026';

/** Back where the reader came from inside the app, else to the start ('/', which sends anonymous readers to /login). */
function BackLink() {
  const navigate = useNavigate();
  return (
    <Link
      to="/"
      onClick={(event) => {
        // react-router numbers its history entries: idx > 0 means an in-app page is behind this one.
        const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
        if (idx > 0) {
          event.preventDefault();
          navigate(-1);
        }
      }}
      className={buttonClasses('ghost', 'sm', '-ml-3')}
    >
      <ArrowLeft aria-hidden="true" className="size-4" />
      Back
    </Link>
  );
}

interface LegalPageProps {
  title: string;
  /** One or two sentences under the title. */
  summary: ReactNode;
  children: ReactNode;
}

/** A readable document page (Terms, Privacy): back link, title, sections; no sign-in needed. */
export function LegalPage({ title, summary, children }: LegalPageProps) {
  return (
    <main className="mx-auto w-full max-w-2xl px-5 pt-4 pb-16 text-[0.95rem] leading-relaxed text-zinc-200">
      <BackLink />
      <header className="mt-4 border-b border-white/10 pb-6">
        <h1 className="text-3xl font-bold tracking-tight text-white">{title}</h1>
        <p className="mt-1 text-sm text-zinc-400">Last updated {LEGAL_UPDATED}</p>
        <div className="mt-4 text-zinc-200">{summary}</div>
      </header>
      <div className="grid gap-8 pt-6">{children}</div>
      <footer className="mt-12 border-t border-white/10 pt-6 text-sm text-zinc-400">
        Questions? Write to <PrivacyEmail />. See also the{' '}
        <Link to="/terms" className="text-white underline underline-offset-2">
          Terms of Service
        </Link>{' '}
        and the{' '}
        <Link to="/privacy" className="text-white underline underline-offset-2">
          Privacy Policy
        </Link>
        .
      </footer>
    </main>
  );
}

/** One numbered-by-heading part of a legal page; lists inside get bullets. */
export function LegalSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="grid gap-3 [&_li]:ml-5 [&_li]:list-disc [&_li]:pl-1 [&_strong]:font-semibold [&_strong]:text-white [&_ul]:grid [&_ul]:gap-2">
      <h2 className="text-xl font-semibold text-white">{title}</h2>
      {children}
    </section>
  );
}

/** An e-mail link to the privacy address. */
export function PrivacyEmail() {
  return (
    <a href={`mailto:${PRIVACY_EMAIL}`} className="text-white underline underline-offset-2">
      {PRIVACY_EMAIL}
    </a>
  );
}
