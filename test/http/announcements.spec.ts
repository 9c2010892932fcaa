import { FILTERS_CHANGED } from '../../src/notifications/notifier.ts';
import { TestServer } from '../support/test-server.ts';
import { announcementCases } from './announcement-cases.ts';

describe('filters_changed announcements (in-process bus)', () => {
  let server: TestServer;
  let heard: string[];

  before(async () => {
    server = await TestServer.start();
    heard = server.listen();
  });
  after(() => server.close());

  announcementCases(() => ({
    server,
    probe: {
      heard: async (accountId) => {
        await server.announcementsSettled();
        return heard.filter((m) => m === `timeline.${accountId} ${FILTERS_CHANGED}`).length;
      },
    },
  }));
});
