import { createBrowserRouter, Navigate, Outlet, useLocation } from 'react-router-dom';
import { session } from './api/session';
import { Shell } from './layout/Shell';
import { SignIn } from './pages/auth/SignIn';
import { SignUp } from './pages/auth/SignUp';
import { ForgotPassword } from './pages/auth/ForgotPassword';
import { ResetPassword } from './pages/auth/ResetPassword';
import { AcceptInvite } from './pages/auth/AcceptInvite';
import { Home } from './pages/Home';
import { OrdersList } from './pages/orders/OrdersList';
import { OrderDetail } from './pages/orders/OrderDetail';
import { ProductsList } from './pages/products/ProductsList';
import { ProductForm } from './pages/products/ProductForm';
import { CustomersList } from './pages/customers/CustomersList';
import { Campaigns } from './pages/marketing/Campaigns';
import { Team } from './pages/settings/Team';
import { Jobs } from './pages/Jobs';

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
            { index: true, element: <Home /> },
            { path: 'orders', element: <OrdersList /> },
            { path: 'orders/:orderId', element: <OrderDetail /> },
            { path: 'products', element: <ProductsList /> },
            { path: 'products/new', element: <ProductForm /> },
            { path: 'products/:productId', element: <ProductForm /> },
            { path: 'customers', element: <CustomersList /> },
            { path: 'marketing', element: <Campaigns /> },
            { path: 'jobs', element: <Jobs /> },
            { path: 'settings/team', element: <Team /> }
          ]
        }
      ]
    },
    { path: '*', element: <Navigate to="/" replace /> }
  ],
  { basename: '/app' }
);
