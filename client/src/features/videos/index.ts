// Video intros (docs/videos.md): what other features show of them.
export { AiVideoCard } from './ai-video-card';
export { VideoIntroPanel } from './video-intro-panel';
