# The contact model's Brownian runs of issue 29 (Maury's aggregation: tau = 0.2, sigma = 0.5,
# kappa = epsilon = 3e-3, dt = 0.02, solver.tol = 1e-3 r), sourced by
# bench/parallel/contact_scaling.sh and bench/contact/gel_iterations.sh so that both time the
# same gels. Per scenario: the short and the long run in steps, then its own settings.
common=(-s run.model=contact -s run.dim=2 -s run.seed=3 -s run.dt=0.02
        -s particles.radius=0.01 -s particles.radius_spread=0.15 -s particles.mass_rule=volume
        -s box.size= -s drag.tau=0.2 -s attraction.kappa=3e-3 -s attraction.epsilon=3e-3
        -s attraction.scaling=sqrt_h -s brownian.sigma=0.5 -s solver.tol=1e-3
        -s output.snapshots= -s output.trajectory_interval=0 -s output.stats_interval=0.02)
gel=(5 20 -s particles.fraction=0.45 -s box.boundary="periodic wall" -s gravity.g="0 -2")
gel3d=(3 10 -s run.dim=3 -s particles.fraction=0.3 -s box.boundary="periodic periodic wall"
       -s gravity.g="0 0 -2")
dilute=(5 20 -s particles.fraction=0.3 -s box.boundary=periodic)
