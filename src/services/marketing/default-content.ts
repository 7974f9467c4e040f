import type { LiquidContent } from '../../platform/liquid/email-content.js';

/** What product and collection announcements say when the operator gives no content of their own. */
export const DEFAULT_CONTENT: Record<'product-announcement' | 'collection-announcement', LiquidContent> = {
  'product-announcement': {
    subject: 'New at {{ store.name }}: {{ product.title }}',
    html:
      '<!doctype html><html><body style="font-family:system-ui,sans-serif"><p>Hello {{ customer.firstName | default: "there" }},</p>' +
      '<h1>{{ product.title }}</h1>{% if product.imageUrl %}<p><img src="{{ product.imageUrl }}" alt="{{ product.title }}" width="480"></p>{% endif %}' +
      '<p>{{ product.priceFormatted }}</p><p><a href="{{ product.url }}">Have a look</a></p></body></html>',
    text: 'Hello {{ customer.firstName | default: "there" }},\n{{ product.title }} is new at {{ store.name }}: {{ product.priceFormatted }}\n{{ product.url }}'
  },
  'collection-announcement': {
    subject: '{{ collection.title }} at {{ store.name }}',
    html:
      '<!doctype html><html><body style="font-family:system-ui,sans-serif"><p>Hello {{ customer.firstName | default: "there" }},</p>' +
      '<h1>{{ collection.title }}</h1><ul>{% for p in collection.products %}<li><a href="{{ p.url }}">{{ p.title }}</a> {{ p.priceFormatted }}</li>{% endfor %}</ul>' +
      '<p><a href="{{ collection.url }}">See the collection</a></p></body></html>',
    text: 'Hello {{ customer.firstName | default: "there" }},\n{{ collection.title }} at {{ store.name }}:\n{% for p in collection.products %}- {{ p.title }} {{ p.priceFormatted }} {{ p.url }}\n{% endfor %}{{ collection.url }}'
  }
};
