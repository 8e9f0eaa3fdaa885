import { Link } from 'react-router-dom';
import { LegalPage, LegalSection, PrivacyEmail } from './legal-page';

/** /terms: the rules for using PodMatch. */
export function TermsScreen() {
  return (
    <LegalPage
      title="Terms of Service"
      summary={
        <p>
          These terms are the agreement between you and PodMatch when you use the app. By signing in you accept them.
          How we handle your data is in the{' '}
          <Link to="/privacy" className="text-white underline underline-offset-2">
            Privacy Policy
          </Link>
          .
        </p>
      }
    >
      <LegalSection title="What PodMatch is">
        <p>
          PodMatch introduces people who listen to the same podcasts. You build a podcast library (by connecting
          Spotify, importing an OPML file or searching our catalog), choose an intent (Dating, Social or Network), like
          or pass on the people in your feed, and chat with the people you match with.
        </p>
      </LegalSection>

      <LegalSection title="Your account">
        <ul>
          <li>You must be at least 18 years old to use PodMatch.</li>
          <li>Use one account, as yourself. Do not pretend to be someone else.</li>
          <li>
            Keep your device secure: whoever holds your signed-in browser can act as you. Log out on shared devices.
          </li>
          <li>
            If you sign in with Spotify, Spotify's own terms also apply to your Spotify account. You can disconnect
            Spotify from your profile at any time.
          </li>
        </ul>
      </LegalSection>

      <LegalSection title="Your content">
        <p>
          Your display name, taglines, pictures, video intro, podcast library and messages stay yours. You allow us to
          store them and to show them to the people PodMatch shows you to, as the Privacy Policy describes, for as long
          as your account exists. Only post what you have the right to share.
        </p>
      </LegalSection>

      <LegalSection title="How to behave">
        <ul>
          <li>No harassment, threats, hate or sexual content nobody asked for.</li>
          <li>No spam, advertising, scams or fake profiles.</li>
          <li>Do not try to read other people's data, break the app's security or overload it.</li>
          <li>Respect a pass, an unmatch or a block: do not try to reach that person another way through PodMatch.</li>
        </ul>
        <p>
          You can unmatch, block or report anyone you matched with. A block hides the two of you from each other
          everywhere in the app. We read reports and may suspend or delete accounts that break these rules.
        </p>
      </LegalSection>

      <LegalSection title="Meeting people">
        <p>
          PodMatch does not check who people are. Be careful when you share personal details or meet someone in person,
          and report behaviour that worries you.
        </p>
      </LegalSection>

      <LegalSection title="The service">
        <p>
          We work to keep PodMatch running and your data safe, but the app is provided as it is: features may change,
          and it may sometimes be unavailable. Match percentages are estimates from podcast libraries, not promises.
          Podcast titles, descriptions and artwork belong to their publishers.
        </p>
      </LegalSection>

      <LegalSection title="Ending">
        <p>
          You can stop using PodMatch at any time. To have your account and its data deleted, write to <PrivacyEmail />{' '}
          with your username. We may close an account that breaks these terms.
        </p>
      </LegalSection>

      <LegalSection title="Changes">
        <p>
          When these terms change, we update this page and its date. Questions go to <PrivacyEmail />.
        </p>
      </LegalSection>
    </LegalPage>
  );
}
