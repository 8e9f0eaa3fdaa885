import { useId } from 'react';
import { MyTopPodcasts } from './my-top-podcasts';
import { OpmlImport } from './opml-import';
import { PodcastSearch } from './podcast-search';

/** The own-profile podcast library: 'My Top Podcasts', OPML import and search-and-add. */
export function PodcastLibrarySection({ userId }: { userId: number }) {
  const headingId = useId();
  return (
    <section
      aria-labelledby={headingId}
      data-testid="podcast-library"
      className="grid gap-4 rounded-3xl border border-white/10 bg-white/[0.02] p-4 shadow-xl shadow-black/20"
    >
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id={headingId} className="text-lg font-semibold text-white">
            My Top Podcasts
          </h2>
          <p className="text-xs text-zinc-400">Hidden shows never appear to other people.</p>
        </div>
        <div className="max-w-[55%] shrink-0">
          <OpmlImport userId={userId} />
        </div>
      </div>
      <MyTopPodcasts userId={userId} />
      <PodcastSearch userId={userId} />
    </section>
  );
}
