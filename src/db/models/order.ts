import type { RelationMappings } from 'objection';
import { BaseModel } from './base-model.js';
import { Fulfillment } from './fulfillment.js';
import { OrderItem } from './order-item.js';

export class Order extends BaseModel {
  static override tableName = 'orders';
  static override jsonAttributes = ['shippingMethod', 'shippingAddress', 'billingAddress'];

  id!: string;
  storeId!: string;
  number!: number;
  customerId!: string | null;
  checkoutSessionId!: string | null;
  email!: string;
  status!: 'open' | 'completed' | 'cancelled';
  /** The payment state machine's states (services/payments/payment-state.ts). */
  paymentStatus!: 'pending' | 'authorized' | 'paid' | 'partially_refunded' | 'refunded' | 'voided' | 'failed';
  /** Refunded so far (minor units): the whole total once `refunded`. */
  amountRefunded!: number;
  /** Stripe's `created` and id of the last event applied to the payment (payments/payment-state.ts orders them). */
  paymentEventCreated!: Date | null;
  paymentEventId!: string | null;
  fulfillmentStatus!: 'unfulfilled' | 'partially_fulfilled' | 'fulfilled';
  paymentProvider!: string;
  paymentIntentId!: string | null;
  currency!: string;
  subtotal!: number;
  discountTotal!: number;
  shippingTotal!: number;
  total!: number;
  discountCode!: string | null;
  shippingMethod!: { id: string; name: string; price: number } | null;
  shippingAddress!: Record<string, unknown>;
  billingAddress!: Record<string, unknown> | null;
  trackingToken!: string;
  createdAt!: Date;
  updatedAt!: Date;
  items?: OrderItem[];
  fulfillments?: Fulfillment[];

  static override get relationMappings(): RelationMappings {
    return {
      items: { relation: BaseModel.HasManyRelation, modelClass: OrderItem, join: { from: 'orders.id', to: 'orderItems.orderId' } },
      fulfillments: { relation: BaseModel.HasManyRelation, modelClass: Fulfillment, join: { from: 'orders.id', to: 'fulfillments.orderId' } }
    };
  }
}
