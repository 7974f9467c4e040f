import { unprocessable } from '../../errors.js';
import { compileContent, renderCompiledSync } from '../../platform/liquid/email-content.js';

export type { EmailTemplate } from '../../platform/modules/contribution.js';
import type { EmailTemplate } from '../../platform/modules/contribution.js';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const layout = (body: string) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#1f2933">${body}<p style="color:#7b8794;font-size:12px">{{ store.name }}</p></body></html>`;

/** Built-in templates (Liquid). A store's marketing templates may add their own keys. */
export const BUILT_IN_TEMPLATES: Record<string, EmailTemplate> = {
  order_confirmation: {
    subject: 'Order {{ order.number }} confirmed at {{ store.name }}',
    html: layout(
      '<h1>Thank you, {{ customer.firstName }}!</h1><p>We received order <strong>{{ order.number }}</strong>.</p><ul>{% for item in order.items %}<li>{{ item.quantity }} × {{ item.title }}</li>{% endfor %}</ul><p>Total: {{ order.totalFormatted }}</p><p><a href="{{ order.trackingUrl }}">Track your order</a></p>'
    ),
    text: 'Thank you, {{ customer.firstName }}! We received order {{ order.number }}.\n{% for item in order.items %}{{ item.quantity }} x {{ item.title }}\n{% endfor %}Total: {{ order.totalFormatted }}\nTrack it: {{ order.trackingUrl }}'
  },
  shipping_confirmation: {
    subject: 'Order {{ order.number }} is on its way',
    html: layout(
      '<h1>Your order has shipped</h1><p>{{ fulfillment.trackingCompany }} {{ fulfillment.trackingNumber }}</p><p><a href="{{ fulfillment.trackingUrl }}">Follow the parcel</a></p><p><a href="{{ order.trackingUrl }}">Your order {{ order.number }}</a></p>'
    ),
    text: 'Your order {{ order.number }} has shipped: {{ fulfillment.trackingCompany }} {{ fulfillment.trackingNumber }} {{ fulfillment.trackingUrl }}\nYour order: {{ order.trackingUrl }}'
  },
  order_cancelled: {
    subject: 'Order {{ order.number }} at {{ store.name }} was cancelled',
    html: layout(
      '<h1>Your order was cancelled</h1><p>Hello {{ customer.firstName }}, order <strong>{{ order.number }}</strong> was cancelled: {{ cancellation.reason }}.</p><ul>{% for item in order.items %}<li>{{ item.quantity }} × {{ item.title }}</li>{% endfor %}</ul><p>Total: {{ order.totalFormatted }}</p><p><a href="{{ order.trackingUrl }}">Your order</a></p>'
    ),
    text: 'Hello {{ customer.firstName }}, order {{ order.number }} was cancelled: {{ cancellation.reason }}.\n{% for item in order.items %}{{ item.quantity }} x {{ item.title }}\n{% endfor %}Total: {{ order.totalFormatted }}\nYour order: {{ order.trackingUrl }}'
  },
  order_refunded: {
    subject: 'A refund for order {{ order.number }} at {{ store.name }}',
    html: layout(
      '<h1>We refunded {{ refund.amountFormatted }}</h1><p>Hello {{ customer.firstName }}, we refunded {{ refund.amountFormatted }} of order <strong>{{ order.number }}</strong>{% if refund.reason != "" %}: {{ refund.reason }}{% endif %}.</p>{% if refund.items.size > 0 %}<ul>{% for item in refund.items %}<li>{{ item.quantity }} × {{ item.title }}</li>{% endfor %}</ul>{% endif %}<p><a href="{{ order.trackingUrl }}">Your order</a></p>'
    ),
    text: 'Hello {{ customer.firstName }}, we refunded {{ refund.amountFormatted }} of order {{ order.number }}{% if refund.reason != "" %}: {{ refund.reason }}{% endif %}.\n{% for item in refund.items %}{{ item.quantity }} x {{ item.title }}\n{% endfor %}Your order: {{ order.trackingUrl }}'
  },
  order_invoice: {
    subject: 'Your invoice from {{ store.name }}: {{ invoice.totalFormatted }}',
    html: layout(
      '<h1>Your order from {{ store.name }}</h1><p>Hello {{ customer.firstName }}, here is your order.</p><ul>{% for item in invoice.items %}<li>{{ item.quantity }} × {{ item.title }}</li>{% endfor %}</ul><p>Total: {{ invoice.totalFormatted }}</p><p><a href="{{ invoice.url }}">View and pay your invoice</a></p>'
    ),
    text: 'Hello {{ customer.firstName }}, here is your order from {{ store.name }}.\n{% for item in invoice.items %}{{ item.quantity }} x {{ item.title }}\n{% endfor %}Total: {{ invoice.totalFormatted }}\nView and pay: {{ invoice.url }}'
  },
  order_edited: {
    subject: 'Order {{ order.number }} at {{ store.name }} was changed',
    html: layout(
      '<h1>Your order was changed</h1><p>Hello {{ customer.firstName }}, order <strong>{{ order.number }}</strong> now holds:</p><ul>{% for item in order.items %}<li>{{ item.quantity }} × {{ item.title }}</li>{% endfor %}</ul><p>Total: {{ order.totalFormatted }}{% if edit.differenceFormatted != "" %} ({{ edit.differenceFormatted }}){% endif %}</p>{% if edit.paymentUrl != "" %}<p><a href="{{ edit.paymentUrl }}">Pay the difference</a></p>{% endif %}<p><a href="{{ order.trackingUrl }}">Your order</a></p>'
    ),
    text: 'Hello {{ customer.firstName }}, order {{ order.number }} was changed.\n{% for item in order.items %}{{ item.quantity }} x {{ item.title }}\n{% endfor %}Total: {{ order.totalFormatted }} {{ edit.differenceFormatted }}\n{% if edit.paymentUrl != "" %}Pay the difference: {{ edit.paymentUrl }}\n{% endif %}Your order: {{ order.trackingUrl }}'
  },
  password_reset: {
    subject: 'Reset your Shopwright password',
    html: '<!doctype html><html><body><p>Hello {{ user.firstName }},</p><p><a href="{{ resetUrl }}">Choose a new password</a>. The link works once and for {{ expiresInMinutes }} minutes.</p><p>If you did not ask for this, ignore this email.</p></body></html>',
    text: 'Hello {{ user.firstName }},\nChoose a new password: {{ resetUrl }}\nThe link works once and for {{ expiresInMinutes }} minutes. If you did not ask for this, ignore this email.'
  },
  team_invite: {
    subject: '{{ inviter.firstName }} invited you to {{ store.name }}',
    html: layout('<p>You are invited to join <strong>{{ store.name }}</strong> as {{ invite.role }}.</p><p><a href="{{ inviteUrl }}">Accept the invitation</a> (valid for 7 days).</p>'),
    text: 'You are invited to join {{ store.name }} as {{ invite.role }}. Accept: {{ inviteUrl }} (valid for 7 days).'
  },
  newsletter_welcome: {
    subject: 'Welcome to {{ store.name }}',
    html: layout('<h1>Thanks for subscribing, {{ customer.firstName | default: "friend" }}!</h1><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>'),
    text: 'Thanks for subscribing to {{ store.name }}!\nUnsubscribe: {{ unsubscribeUrl }}'
  },
  campaign_default: {
    subject: 'News from {{ store.name }}',
    html: layout('<p>Hello {{ customer.firstName | default: "there" }},</p><div>{{ content }}</div><p><a href="{{ unsubscribeUrl }}">Unsubscribe</a></p>'),
    text: 'Hello {{ customer.firstName | default: "there" }},\n{{ content }}\nUnsubscribe: {{ unsubscribeUrl }}'
  }
};

export const BUILT_IN_TEMPLATE_KEYS = Object.keys(BUILT_IN_TEMPLATES);

/** Sample context for every built-in key, so a test send shows every placeholder filled. */
export function sampleData(storeName: string, appUrl: string): Record<string, unknown> {
  const store = { name: storeName };
  const customer = { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' };
  const order = {
    number: '#1001',
    items: [
      { title: 'Sample T-shirt', quantity: 2 },
      { title: 'Sample mug', quantity: 1 }
    ],
    totalFormatted: '49.97 USD',
    trackingUrl: `${appUrl}/api/v1/public/orders/sample`
  };
  return {
    store,
    customer,
    order,
    user: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' },
    cancellation: { reason: 'we did not receive its payment within 7 days' },
    refund: { amount: 1999, amountFormatted: '19.99 USD', reason: 'damaged in transit', items: [{ title: 'Sample mug', quantity: 1 }] },
    fulfillment: { trackingCompany: 'UPS', trackingNumber: '1Z999AA10123456784', trackingUrl: 'https://example.com/track/1Z999' },
    resetUrl: `${appUrl}/reset-password?token=sample`,
    expiresInMinutes: 60,
    inviter: { firstName: 'Alex' },
    invite: { role: 'staff' },
    inviteUrl: `${appUrl}/app/accept-invite?token=sample`,
    unsubscribeUrl: `${appUrl}/api/v1/public/unsubscribe?token=sample`,
    content: 'This is a sample campaign body.',
    invoice: { url: `${appUrl}/api/v1/public/invoices/sample`, totalFormatted: '49.97 USD', items: [{ title: 'Sample mug', quantity: 1 }] },
    edit: { differenceFormatted: '+9.99 USD', paymentUrl: '' }
  };
}

/**
 * Renders a built-in or store template in the sandbox (src/platform/liquid): a syntax error, a refused
 * tag or a limit reached throws, and the caller fails that one email.
 */
export function renderTemplate(template: EmailTemplate, data: Record<string, unknown>): RenderedEmail {
  return renderCompiledSync(compileContent(template), data);
}

export function unknownTemplateKey(allowed: string[]) {
  return unprocessable('validation_failed', `Unknown template key; allowed keys: ${allowed.join(', ')}`, [
    { path: 'templateKey', message: `must be one of: ${allowed.join(', ')}` }
  ]);
}
