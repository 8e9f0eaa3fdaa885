import { fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { NotFoundScreen } from './not-found-screen';

function renderAt(path = '/nope') {
  const router = createMemoryRouter([{ path: '*', element: <NotFoundScreen /> }], { initialEntries: [path] });
  render(<RouterProvider router={router} />);
  return router;
}

describe('NotFoundScreen', () => {
  it('shows the SPEC texts', () => {
    renderAt();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('404 Page Not Found');
    screen.getByText("The page you're looking for doesn't exist or has been moved.");
  });

  it("'Go to Feed' goes to / and 'View Profile' to /profile", () => {
    const router = renderAt();
    fireEvent.click(screen.getByRole('button', { name: 'Go to Feed' }));
    expect(router.state.location.pathname).toBe('/');
    fireEvent.click(screen.getByRole('button', { name: 'View Profile' }));
    expect(router.state.location.pathname).toBe('/profile');
  });
});
