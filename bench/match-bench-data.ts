/**
 * The matching benchmark's data, the same on every run: one account with 20 filters of 5 keywords
 * each, and statuses of about 500 characters of Mastodon-style HTML (paragraphs, mentions, hashtags,
 * links, entities), a tenth of which contain one of the keywords.
 */
import type { MatchableFilter } from '../src/matching/compiled-filters.ts';
import type { MatchableStatus } from '../src/matching/searchable-text.ts';

const WORDS = (
  'the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we ' +
  'when your can said there use an each which she do how their if will up other about out many then them these so some her would make ' +
  'like him into time has look two more write go see number no way could people my than first water been call who oil its now find long ' +
  'down day did get come made may part over new sound take only little work know place year live me back give most very after thing our ' +
  'just name good sentence man think say great where help through much before line right too mean old any same tell boy follow came want'
).split(' ');

const TOPICS = (
  'election senate tariff inflation layoffs lawsuit recall outbreak vaccine covid crypto bitcoin blockchain nft airdrop ' +
  'spoilers finale episode trailer premiere leak rumor playoffs transfer injury referee doping scandal divorce diet calories ' +
  'gambling casino lottery betting horoscope astrology keto fasting supplements detox hustle grindset influencer giveaway sponsored ' +
  'adverts promo discount coupon clickbait thread unroll ratio cancelled drama feud beef outrage boycott petition protest riot strike ' +
  'earthquake wildfire flood hurricane tornado shooting crash wreck death obituary funeral grief cancer surgery hospital diagnosis ' +
  'therapy anxiety depression trauma'
).split(' ');

function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]! };
}

/** 20 filters of 5 keywords: whole-word and partial, single words, phrases and hashtags. */
export function benchFilters(): MatchableFilter[] {
  const r = random(7);
  return Array.from({ length: 20 }, (_, f) => ({
    id: String(1_000_000 + f),
    title: `filter ${f}`,
    context: f % 3 === 0 ? ['home', 'public'] : ['home'],
    filterAction: f % 4 === 0 ? 'hide' : 'warn',
    expiresAt: null,
    keywords: Array.from({ length: 5 }, (_, k) => {
      const topic = TOPICS[(f * 5 + k) % TOPICS.length]!;
      const keyword = k === 3 ? `${topic} ${r.pick(TOPICS)}` : k === 4 ? `#${topic}` : topic;
      return { keyword, wholeWord: k !== 1 };
    }),
    statuses: f === 0 ? [{ statusId: '99000000000000007' }] : [],
  }));
}

const sentence = (r: ReturnType<typeof random>, words: number) => Array.from({ length: words }, () => r.pick(WORDS)).join(' ');

/** `count` statuses of about 500 characters of HTML; every tenth one carries a keyword, in some case. */
export function benchStatuses(count: number, filters: readonly MatchableFilter[] = benchFilters()): MatchableStatus[] {
  const r = random(42);
  const keywords = filters.flatMap((f) => f.keywords.map((k) => k.keyword));
  return Array.from({ length: count }, (_, i) => {
    const name = r.pick(WORDS);
    const tag = r.pick(WORDS);
    let html =
      `<p><span class="h-card"><a href="https://social.example/@${name}" class="u-url mention">@<span>${name}</span></a></span> ` +
      `${sentence(r, 5)} &amp; ${sentence(r, 2)}.</p><p>${sentence(r, 4)}<br />${sentence(r, 3)} ` +
      `<a href="https://news.example/${r.pick(WORDS)}/${i}" target="_blank" rel="nofollow noopener" translate="no">` +
      `<span class="invisible">https://</span><span class="ellipsis">news.example/${r.pick(WORDS)}</span><span class="invisible">/${i}</span></a></p>` +
      `<p>${sentence(r, 2)} <a href="https://social.example/tags/${tag}" class="mention hashtag" rel="tag">#<span>${tag}</span></a></p>`;
    if (i % 10 === 0) {
      const keyword = r.pick(keywords);
      html = html.replace('</p>', ` ${i % 20 === 0 ? keyword.toUpperCase() : keyword}!</p>`);
    }
    return {
      id: String(100_000_000_000_000_000n + BigInt(i)),
      reblog_of_id: i % 7 === 0 ? '99000000000000007' : null,
      spoiler_text: i % 5 === 0 ? sentence(r, 3) : '',
      content: html,
      media_descriptions: i % 4 === 0 ? [sentence(r, 8)] : [],
    };
  });
}
