import { createBrowserRouter, Navigate, Outlet, useLocation } from 'react-router-dom';
import { session } from './api/session';
import { Shell } from './layout/Shell';
import { SignIn } from './pages/auth/SignIn';
import { SignUp } from './pages/auth/SignUp';
import { ForgotPassword } from './pages/auth/ForgotPassword';
import { ResetPassword } from './pages/auth/ResetPassword';
import { AcceptInvite } from './pages/auth/AcceptInvite';

/** Each signed-in screen is its own chunk, loaded when first opened (the sign-in screen loads least). */
const screen = (load: () => Promise<{ Component: () => JSX.Element | null }>) => ({ lazy: load });

/** Signed-in screens; without a token, sign-in first and then back here. */
function RequireSession() {
  const location = useLocation();
  if (!session.token()) return <Navigate to={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <Outlet />;
}

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignIn /> },
    { path: '/sign-up', element: <SignUp /> },
    { path: '/forgot-password', element: <ForgotPassword /> },
    { path: '/reset-password', element: <ResetPassword /> },
    { path: '/accept-invite', element: <AcceptInvite /> },
    {
      element: <RequireSession />,
      children: [
        {
          element: <Shell />,
          children: [
            { index: true, ...screen(() => import('./pages/Home').then((m) => ({ Component: m.Home }))) },
            { path: 'orders', ...screen(() => import('./pages/orders/OrdersList').then((m) => ({ Component: m.OrdersList }))) },
            { path: 'orders/:orderId', ...screen(() => import('./pages/orders/OrderDetail').then((m) => ({ Component: m.OrderDetail }))) },
            { path: 'draft-orders', ...screen(() => import('./pages/draft-orders/DraftOrders').then((m) => ({ Component: m.DraftOrders }))) },
            { path: 'draft-orders/new', ...screen(() => import('./pages/draft-orders/DraftOrderPage').then((m) => ({ Component: m.DraftOrderPage }))) },
            { path: 'draft-orders/:draftOrderId', ...screen(() => import('./pages/draft-orders/DraftOrderPage').then((m) => ({ Component: m.DraftOrderPage }))) },
            { path: 'products', ...screen(() => import('./pages/products/ProductsList').then((m) => ({ Component: m.ProductsList }))) },
            { path: 'products/transfer', ...screen(() => import('./pages/products/ProductTransfer').then((m) => ({ Component: m.ProductTransfer }))) },
            { path: 'products/new', ...screen(() => import('./pages/products/ProductForm').then((m) => ({ Component: m.ProductForm }))) },
            { path: 'products/:productId', ...screen(() => import('./pages/products/ProductForm').then((m) => ({ Component: m.ProductForm }))) },
            { path: 'customers', ...screen(() => import('./pages/customers/CustomersList').then((m) => ({ Component: m.CustomersList }))) },
            { path: 'customers/:customerId', ...screen(() => import('./pages/customers/CustomerDetail').then((m) => ({ Component: m.CustomerDetail }))) },
            { path: 'marketing', ...screen(() => import('./pages/marketing/Campaigns').then((m) => ({ Component: m.Campaigns }))) },
            { path: 'marketing/templates', ...screen(() => import('./pages/marketing/Templates').then((m) => ({ Component: m.Templates }))) },
            { path: 'marketing/audiences', ...screen(() => import('./pages/marketing/Audiences').then((m) => ({ Component: m.Audiences }))) },
            { path: 'jobs', ...screen(() => import('./pages/Jobs').then((m) => ({ Component: m.Jobs }))) },
            { path: 'jobs/:jobId', ...screen(() => import('./pages/JobDetail').then((m) => ({ Component: m.JobDetail }))) },
            { path: 'reviews', ...screen(() => import('./pages/reviews/Reviews').then((m) => ({ Component: m.Reviews }))) },
            { path: 'discounts', ...screen(() => import('./pages/discounts/Discounts').then((m) => ({ Component: m.Discounts }))) },
            { path: 'settings/storefront-tokens', ...screen(() => import('./pages/settings/StorefrontTokens').then((m) => ({ Component: m.StorefrontTokens }))) },
            { path: 'collections', ...screen(() => import('./pages/collections/Collections').then((m) => ({ Component: m.Collections }))) },
            { path: 'collections/:collectionId', ...screen(() => import('./pages/collections/CollectionDetail').then((m) => ({ Component: m.CollectionDetail }))) },
            { path: 'settings/store', ...screen(() => import('./pages/settings/StoreSettings').then((m) => ({ Component: m.StoreSettings }))) },
            { path: 'settings/api-keys', ...screen(() => import('./pages/settings/ApiKeys').then((m) => ({ Component: m.ApiKeys }))) },
            { path: 'settings/webhooks', ...screen(() => import('./pages/settings/Webhooks').then((m) => ({ Component: m.Webhooks }))) },
            { path: 'settings/email', ...screen(() => import('./pages/settings/EmailSettings').then((m) => ({ Component: m.EmailSettings }))) },
            { path: 'settings/domain-payments', ...screen(() => import('./pages/settings/DomainPayments').then((m) => ({ Component: m.DomainPayments }))) },
            { path: 'settings/shipping', ...screen(() => import('./pages/shipping/ShippingZones').then((m) => ({ Component: m.ShippingZones }))) },
            { path: 'settings/taxes', ...screen(() => import('./pages/taxes/Taxes').then((m) => ({ Component: m.Taxes }))) },
            { path: 'settings/audit-log', ...screen(() => import('./pages/audit/AuditLog').then((m) => ({ Component: m.AuditLog }))) },
            { path: 'settings/team', ...screen(() => import('./pages/settings/Team').then((m) => ({ Component: m.Team }))) }
          ]
        }
      ]
    },
    { path: '*', element: <Navigate to="/" replace /> }
  ],
  { basename: '/app' }
);
