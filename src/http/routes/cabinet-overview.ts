// GET /cabinet/api/overview and GET /cabinet/api/models: the account cabinet's front page and
// its price list (session routes: the account is the session's, through its cabinet key).
import { readOverview } from '../../cabinet-api/overview.js';
import { priceList } from '../../cabinet-api/models.js';
import type { Handler } from '../state.js';

export const cabinetOverview: Handler = async (ctx, services) => {
  ctx.body = await readOverview(services.db, services.ledger, ctx.state.apiKey!.accountId, services.now());
};

export const cabinetModels: Handler = (ctx, services) => {
  ctx.body = priceList(services.catalog, services.config.currency.usdRub);
};
