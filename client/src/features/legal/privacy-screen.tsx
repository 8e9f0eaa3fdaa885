import { LegalPage, LegalSection, PrivacyEmail } from './legal-page';

/** /privacy: what PodMatch stores, why, for how long, and how to get it or have it deleted. */
export function PrivacyScreen() {
  return (
    <LegalPage
      title="Privacy Policy"
      summary={
        <p>
          PodMatch matches people through the podcasts they listen to. This page says, in plain words, what we store
          about you, why, who can see it, how long we keep it, and how to get a copy or have it deleted.
        </p>
      }
    >
      <LegalSection title="What we store">
        <ul>
          <li>
            <strong>Your account:</strong> your username, display name, the intent you are using (Dating, Social or
            Network), your taglines, your match preferences (such as the minimum match percentage), how you signed up
            and when. If you sign in with or connect Spotify, also your Spotify user id and the display name from your
            Spotify profile.
          </li>
          <li>
            <strong>Your profiles:</strong> one profile per intent, with the name, tagline, profile picture and video
            intro shown in that intent, and whether you appear in that intent's feed.
          </li>
          <li>
            <strong>Your podcast library:</strong> the shows you add by searching our catalog, the feeds listed in an
            OPML file you import (we keep the shows' titles and feed addresses, not the file), and, when Spotify is
            connected, your saved shows and the shows of your saved episodes. For each show we keep where it came from,
            whether you hid it, and listening figures from Spotify (how many saved episodes you started or finished, the
            latest one and when).
          </li>
          <li>
            <strong>Likes, passes and matches:</strong> whom you liked or passed on in which intent, mutual matches,
            favourites, whether you opened a match, how far you read a conversation, unmatches, the people you blocked,
            and reports you send (the reason and the details you write).
          </li>
          <li>
            <strong>Messages:</strong> the chat messages you send and receive, with their time and read receipts.
          </li>
          <li>
            <strong>Pictures and videos:</strong> your profile picture and video intro are files on our server. Until
            you upload a picture, an illustrated portrait generated from your account id (not from your name, photo or
            anything else about you) takes the place of the old letter avatar and is stored the same way. A picture you
            upload is re-encoded before it is stored: its metadata (camera details, the date and the GPS position
            included) is removed and never kept, and the picture it replaces is deleted.
          </li>
          <li>
            <strong>Spotify tokens:</strong> the access and refresh tokens Spotify gives us when you connect, stored
            encrypted (AES-256-GCM). They never leave our server; we use them only to read your saved shows and
            episodes.
          </li>
          <li>
            <strong>Sign-in sessions:</strong> for each login, a one-way hash of its token (never the token itself),
            when it was created, when it expires and your browser's user-agent string.
          </li>
          <li>
            <strong>Push notifications</strong>, only if you turn them on for a device: that browser's push address and
            the keys that encrypt what we send to it (never shown back), a device label such as "Chrome on Android",
            when it was added and last used, and your notification settings and quiet hours. What a notification carries
            is encrypted for your device; it contains a message's text only if you turn on previews.
          </li>
          <li>
            <strong>Computed matching data:</strong> match percentages and "similar taste" lists, worked out from the
            shows people have not hidden, and rebuilt regularly.
          </li>
          <li>
            <strong>In your browser:</strong> your sign-in token and user id in local storage. The login screen's "Clear
            Local Storage &amp; Log Out" button removes them.
          </li>
        </ul>
        <p>
          Short-lived technical records (chat rate-limit counters, Spotify sign-in state for 10 minutes, one-time
          sign-in codes for 60 seconds, who is online right now, which of your devices has the app open) live in memory
          and expire on their own.
        </p>
      </LegalSection>

      <LegalSection title="Why we store it">
        <ul>
          <li>Your account and sessions: to sign you in and keep you signed in.</li>
          <li>
            Your podcast library and computed matching data: to find people whose taste overlaps yours and to explain
            why you match.
          </li>
          <li>Your profiles, pictures and videos: to show you to people in the feed of the intent you chose.</li>
          <li>
            Your notification devices and settings: to tell you about new matches, messages and finished videos while
            the app is closed, and only as you asked.
          </li>
          <li>
            Likes, passes, matches and messages: so you can match and talk, and so people you passed do not return.
          </li>
          <li>Blocks and reports: to keep people apart who should be, and to act on abuse.</li>
          <li>Spotify tokens: to keep your library in step with Spotify without asking you to sign in again.</li>
        </ul>
        <p>We do not sell your data and we show no ads.</p>
      </LegalSection>

      <LegalSection title="Who can see what">
        <p>
          Other people see you only if you are in their feed or a mutual match of theirs, and only as you present
          yourself in that intent: your display name, picture, video intro, that intent's tagline, your match percentage
          and the podcasts you share. Taglines of your other intents stay private. Your username, Spotify details,
          tokens and hidden shows are never shown to anyone else. A like is invisible to the other person until it is
          mutual. Messages are seen only by the two people of the match.
        </p>
      </LegalSection>

      <LegalSection title="How long we keep it">
        <p>
          We keep your data until your account is deleted (see below), with one exception that lasts longer: reports.
          Some things end sooner:
        </p>
        <ul>
          <li>
            A login expires 30 days after it starts, and logging out ends it at once; the session record (hash, dates,
            user-agent) stays until the account is deleted.
          </li>
          <li>Removing a show from your library deletes that entry at once.</li>
          <li>
            Disconnecting Spotify deletes your Spotify tokens, your last-sync time and the shows that came from Spotify
            at once. Your Spotify user id stays as the link you sign in with.
          </li>
          <li>
            Unmatching or blocking hides the match and its conversation from both people; the records stay, so the other
            person does not reappear in your feed.
          </li>
        </ul>
        <p>
          Deleting an account deletes everything linked to it: profiles, pictures and videos, library, likes, matches,
          messages, blocks, sessions and tokens.
        </p>
        <p>
          <strong>Reports are kept for one year</strong> from the day they were made, even when either person deletes
          their account, and then deleted automatically. Without this, someone reported for harassment could erase the
          record by deleting their account and signing up again. We keep only what a moderator needs: the reported
          person's id, their display name, their profile as the reporter saw it, and the text of their messages in the
          reported conversation as they were when the report was made. Moderators see who made a report; the reported
          person never does. If the person who reported deletes their account, the report no longer says who made it.
        </p>
        <p>
          <strong>Moderation decisions</strong> about you (what was decided, why, which rule, until when) and your
          appeals are kept for the same year and cannot be edited by anyone. You are told every decision about you in
          the app, with how to appeal it.
        </p>
      </LegalSection>

      <LegalSection title="Your choices">
        <ul>
          <li>Choose the intent you appear in on your profile.</li>
          <li>Hide a show (it is then never shown to others) or remove it from My Top Podcasts.</li>
          <li>Disconnect Spotify on your profile at any time.</li>
          <li>Unmatch, block or report someone from your matches.</li>
          <li>Log out, which ends your session on our server too.</li>
          <li>Download a copy of your data, or delete your account, on your profile (see below).</li>
        </ul>
      </LegalSection>

      <LegalSection title="Get a copy of your data or delete your account">
        <p>
          Both are on your profile (My Profile), in the <strong>Your data</strong> card:
        </p>
        <ul>
          <li>
            <strong>Download my data</strong> saves a JSON file with everything we store about you: your account and
            profiles, your linked Bluesky identity, your library, your likes, passes and matches, the messages you sent
            and the ones you received in your current conversations, your video intros, your blocks and reports, your
            sign-in sessions, and the devices that receive notifications (by label and dates) with your notification
            settings. It never contains a password, a token or a token hash, nor who reported you; other people appear
            only by their id and display name, and by their id alone once either of you has blocked the other.
          </li>
          <li>
            <strong>Delete account</strong> asks you to type DELETE to confirm, then deletes your account at once with
            everything linked to it: profiles, pictures and videos, library, likes, matches, messages, blocks, sessions,
            notification devices and tokens (reports are kept for a year, as described above). Your matches disappear
            from the other people's screens right away, and every device you are signed in on is signed out. Your
            username and Spotify account are free again, so you can sign up afresh later.
          </li>
        </ul>
        <p>
          If you cannot sign in any more, write to <PrivacyEmail /> from the e-mail address you want us to answer and
          give your PodMatch username; we will confirm that the account is yours before we act.
        </p>
      </LegalSection>

      <LegalSection title="Services we use">
        <p>
          <strong>Spotify</strong>, only if you sign in with it or connect it: we read your profile id and name, your
          saved shows and your saved episodes. <strong>Podcast publishers</strong>: our server reads the public RSS
          feeds of shows in the catalog. Show artwork and other remote pictures reach your browser only through our own
          server, which fetches them from the address the publisher or Spotify gives, so no publisher or image host
          learns who looked at what; when there is none, our own server draws a placeholder.
        </p>
      </LegalSection>

      <LegalSection title="Changes">
        <p>
          When what we store or why changes, we update this page and its date. Questions go to <PrivacyEmail />.
        </p>
      </LegalSection>
    </LegalPage>
  );
}
