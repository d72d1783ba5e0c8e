"""agglo.aggregate and agglo.write_aggregates: the prescribed R_g, no overlap, refusals, a file
read back by the trajectory reader."""
import numpy as np
import pytest

import agglo
from agglo import analysis as an


def test_aggregate_has_the_prescribed_rg_and_no_overlap():
    a = agglo.aggregate(n=200, fractal_dimension=1.8, prefactor=1.3, seed=4)
    assert a.positions.shape == (200, 3) and a.radii.shape == (200,)
    x, r = a.positions, a.radii
    rg = np.sqrt(((x - x.mean(0)) ** 2).sum(1).mean())
    assert rg == pytest.approx((200 / 1.3) ** (1 / 1.8), rel=1e-9)
    d = np.linalg.norm(x[:, None] - x[None], axis=2) + 3 * np.eye(200)
    assert d.min() > 2 - 1e-9
    assert len(set(an.cluster_labels(x, r, contact_gap=1e-6))) == 1


def test_two_dimensions_lognormal_and_reproducible():
    a = agglo.aggregate(n=150, fractal_dimension=1.5, prefactor=1.3, dim=2,
                        radius_distribution="lognormal", radius_sigma=1.2, seed=2, index=1)
    b = agglo.aggregate(n=150, fractal_dimension=1.5, prefactor=1.3, dim=2,
                        radius_distribution="lognormal", radius_sigma=1.2, seed=2, index=1)
    assert np.all(a.positions[:, 2] == 0) and np.array_equal(a.positions, b.positions)
    assert a.radii.std() > 0 and a.rg == pytest.approx(a.rg_target, rel=1e-9)


def test_refused_with_the_bound():
    with pytest.raises(agglo.InputError, match="allowed at this D_f: k_f from 1.438 to 2.418"):
        agglo.aggregate(n=50, fractal_dimension=1.5, prefactor=1.3, method="pc")
    with pytest.raises(ValueError, match="method"):
        agglo.aggregate(n=50, method="dla")


def test_written_file_is_a_trajectory(tmp_path):
    a = [agglo.aggregate(n=60, seed=1, index=k) for k in range(3)]
    path = tmp_path / "three.xyz"
    agglo.write_aggregates(path, a, 1.8, 1.3)
    frames = list(an.Trajectory(path))
    assert len(frames) == 1 and frames[0].positions.shape == (180, 3)
    assert len(set(frames[0].clusters)) == 3


def test_written_as_frames(tmp_path):
    a = [agglo.aggregate(n=50 + 10 * k, seed=1, index=k) for k in range(3)]
    path = tmp_path / "frames.xyz"
    agglo.write_aggregates(path, a, 1.8, 1.3, frames=True)
    assert [f.positions.shape[0] for f in an.Trajectory(path)] == [50, 60, 70]
