"""agglo.analysis over numpy arrays: known shapes, argument checks, and a simulation's arrays."""
import numpy as np
import pytest

import agglo
from agglo import analysis as an


def test_two_touching_spheres_are_one_cluster():
    x = np.array([[0.0, 0.0], [2.0, 0.0], [5.0, 0.0]])
    r = np.ones(3)
    labels = an.cluster_labels(x, r, contact_gap=0.01)
    assert labels.dtype == np.int32 and list(labels) == [0, 0, 2]
    assert list(an.cluster_sizes(labels)) == [2, 1]
    # 3D, and the exact-contact case: touching means a gap below contact_gap
    x3 = np.array([[0.0, 0, 0], [0, 0, 2.0]])
    assert list(an.cluster_labels(x3, [1, 1], contact_gap=1e-9)) == [0, 0]
    assert list(an.cluster_labels(x3, [1, 1], contact_gap=0)) == [0, 1]


def test_sheared_trajectory_keeps_the_offset(tmp_path):
    # a Lees-Edwards frame (docs/dpd.md "Shear"): B's image across the upper y face is shifted
    # by shear_x = 3 onto A; the frame's box carries it into the analysis, 0 keeps them apart
    p = tmp_path / "le.xyz"
    p.write_text('2\nLattice="8 0 0 3 8 0 0 0 8" Origin="0 0 0" '
                 'Properties=species:S:1:pos:R:3:radius:R:1 pbc="T T T"\n'
                 "X 4.25 7.9 6.5 0.1\nX 1.25 0.1 6.5 0.1\n")
    f = an.Trajectory(str(p))[0]
    assert f.box.shear_x == 3.0
    assert list(an.cluster_labels(f.positions, f.radii, 0.05, box=f.box)) == [0, 0]
    assert list(an.cluster_labels(f.positions, f.radii, 0.05, box=f.box._replace(shear_x=0))) == [0, 1]
    # a point below the lower y face wraps through the sheared image: x shifted by +3
    far = f.positions.copy()
    far[1, 1] += 8  # B one box height up: the same particle seen through the upper face's image
    far[1, 0] += 3
    assert list(an.cluster_labels(far, f.radii, 0.05, box=f.box)) == [0, 0]


def test_periodic_images_join_clusters():
    x = np.array([[0.5, 5.0], [9.6, 5.0]])  # 0.9 apart through the x boundary
    box = agglo.Box(np.array([0.0, 0.0]), np.array([10.0, 10.0]), (True, False))
    assert list(an.cluster_labels(x, [0.45, 0.45], 0.01, box=box)) == [0, 0]
    assert list(an.cluster_labels(x, [0.45, 0.45], 0.01)) == [0, 1]
    d = {"lo": [0, 0], "hi": [10, 10], "periodic": [True, True]}
    assert an.contacts_per_sphere(x, 1.0, box=d) == pytest.approx(4 / 12)
    assert an.contacts_per_sphere(x, 1.0) == pytest.approx(2 / 12)


def test_cluster_sizes():
    assert list(an.cluster_sizes([5, 5, 2, 3, 3, 3])) == [3, 2, 1]
    assert list(an.cluster_sizes(np.array([], dtype=np.int32))) == []
    with pytest.raises(agglo.InputError, match="integer"):
        an.cluster_sizes([0.5, 1.0])


def test_gyration_of_a_ring():
    R, k = 2.5, 360
    phi = 2 * np.pi * np.arange(k) / k
    ring = np.column_stack([R * np.cos(phi) + 3, R * np.sin(phi) - 1])
    g = an.gyration(ring)
    assert g.rg == pytest.approx(R, rel=1e-12)
    assert g.tensor.shape == (2, 2)
    assert np.allclose(g.tensor, np.diag([R * R / 2] * 2), atol=1e-12)
    ring3 = np.column_stack([ring, np.zeros(k)])
    assert an.gyration(ring3).tensor.shape == (3, 3)
    w = np.ones(k)
    w[0] = 1e6  # weights pull the centre to one point
    assert an.gyration(ring, w).rg < 0.1 * R


def test_box_counting_of_a_filled_square_is_two():
    side = 128
    g = (np.arange(side) + 0.5) / side
    x, y = np.meshgrid(g, g)
    pts = np.column_stack([x.ravel(), y.ravel()])
    bc = an.box_counting(pts, eps_min=2.0 / side)
    assert bc.dimension == pytest.approx(2.0, abs=0.05)
    assert len(bc.eps) == len(bc.counts) >= 3 and np.all(np.diff(bc.eps) < 0)
    line = np.column_stack([g, np.zeros(side)])
    d_line = an.box_counting(line, eps_min=2.0 / side, dim=2).dimension
    assert d_line == pytest.approx(1.0, abs=0.05)
    # the paper's grid over the unit box: exact counts 4^m and 2^m
    bb = an.box_counting(pts, eps_min=2.0 / side, box=an.Box(0, 1, False))
    assert bb.dimension == pytest.approx(2.0, abs=1e-12)
    assert list(bb.counts) == [4.0 ** m for m in range(1, len(bb.counts) + 1)]
    assert an.box_counting(line, eps_min=2.0 / side, dim=2,
                           box=an.Box(0, 1, False)).dimension == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(agglo.InputError, match="outside the box"):
        an.box_counting(pts + 2, box=an.Box(0, 1, False))


def test_mass_radius_dimension_recovers_the_slope():
    sizes = np.array([4, 8, 16, 32, 64, 128, 256])
    rg = 0.3 * sizes ** (1 / 1.7)
    assert an.mass_radius_dimension(sizes, rg) == pytest.approx(1.7, rel=1e-9)
    assert np.isnan(an.mass_radius_dimension([2, 3], [1.0, 1.2]))


def test_pair_distribution_and_contacts():
    x = np.array([[0.0, 0.0], [2.0, 0.0]])
    assert list(an.pair_distribution(x, [1.0, 2.0, 3.0])) == [0.0, 1.0, 1.0]
    assert an.pair_distribution(x, 2.5) == 1.0
    assert an.contacts_per_sphere(x, 2.1) == pytest.approx(4 / 12)
    x3 = np.array([[0.0, 0, 0], [2.0, 0, 0]])
    assert an.contacts_per_sphere(x3, 2.1) == pytest.approx(4 / 24)


def test_ellipsoid_classes():
    line = np.column_stack([2.0 * np.arange(10), np.zeros(10), np.zeros(10)])
    e = an.ellipsoid(line, np.ones(10))
    assert e.semi[0] > 3 * e.semi[1] and e.semi[1] == pytest.approx(e.semi[2])
    assert abs(e.axes[0, 0]) == pytest.approx(1.0)  # the long axis along x
    assert an.ellipsoid_class(e) == "prolate"
    assert an.ellipsoid_class(e.semi) == "prolate"
    g = np.arange(6) * 2.0
    plate = np.array([[a, b, 0.0] for a in g for b in g])
    assert an.ellipsoid_class(an.ellipsoid(plate, np.ones(36))) == "oblate"
    cube = np.array([[a, b, c] for a in g[:4] for b in g[:4] for c in g[:4]])
    assert an.ellipsoid_class(an.ellipsoid(cube, np.ones(64))) == "sphere"
    assert an.ellipsoid_class([3, 2, 1]) == "scalene"
    with pytest.raises(agglo.InputError, match="tol"):
        an.ellipsoid_class([3, 2, 1], tol=-1)
    line2 = line[:, :2]  # 2D centres get z = 0
    assert np.allclose(an.ellipsoid(line2, np.ones(10)).semi, e.semi)


def test_temperature():
    v = np.array([[1.0, 0.0], [-1.0, 0.0]])
    assert an.temperature(v, [1.0, 1.0]) == pytest.approx(2.0 / (2 * 1))
    v = v + 5.0  # the centre-of-mass motion is removed
    assert an.temperature(v, [1.0, 1.0]) == pytest.approx(1.0)


def test_argument_checks():
    x = np.zeros((3, 2))
    with pytest.raises(agglo.InputError, match=r"positions: shape \(3, 4\)"):
        an.gyration(np.zeros((3, 4)))
    with pytest.raises(agglo.InputError, match=r"positions: shape \(6,\)"):
        an.gyration(np.zeros(6))
    with pytest.raises(agglo.InputError, match="dtype <U1 is not a real number type"):
        an.gyration(np.full((3, 2), "a"))
    with pytest.raises(agglo.InputError, match=r"radii: shape \(2,\); expected \(3,\)"):
        an.cluster_labels(x, [1.0, 1.0])
    with pytest.raises(agglo.InputError, match="is not finite"):  # the library's check
        an.gyration(np.array([[0.0, np.nan]]))
    with pytest.raises(agglo.InputError, match="n = 0"):
        an.gyration(np.zeros((0, 3)))
    with pytest.raises(agglo.InputError, match="z coordinate"):
        an.box_counting(np.array([[0.0, 0, 1], [1, 1, 0]]), dim=2)
    with pytest.raises(agglo.InputError, match="box.lo"):
        an.contacts_per_sphere(x, 1.0, box={"lo": [0, 0, 0], "hi": [1, 1]})
    with pytest.raises(ValueError):  # InputError is a ValueError
        an.contacts_per_sphere(x, -1.0)


def test_layouts_give_the_same_result():
    rng = np.random.default_rng(1)
    x = rng.random((50, 3))
    f = np.asfortranarray(x)
    strided = np.zeros((50, 6))
    strided[:, ::2] = x
    ints = (x * 100).astype(np.int64)
    for a in (f, strided[:, ::2]):
        assert an.gyration(a).rg == an.gyration(x).rg
    assert an.gyration(ints).rg == pytest.approx(an.gyration(ints.astype(float)).rg)
    assert an.box_counting(x.astype(np.float32)).dimension == pytest.approx(
        an.box_counting(x.astype(np.float32).astype(np.float64)).dimension)


def test_on_a_simulation(small_contact):
    sim = small_contact()
    sim.run()
    labels = an.cluster_labels(sim.positions, sim.radii, sim.contact_gap, box=sim.box)
    assert len(np.unique(labels)) == sim.cluster_count
    # the same partition as the simulation's own labels
    pairs = set(zip(labels.tolist(), sim.clusters.tolist()))
    assert len(pairs) == sim.cluster_count
    sizes = an.cluster_sizes(labels)
    assert sizes.sum() == sim.n and sizes[0] == sim.report["max_cluster_size"]


def test_smoluchowski_fuchs_kernel():
    # continuum limit: the Brownian kernel's solution; a bad mobility law is refused
    a = an.smoluchowski("fuchs", 0.5, kmax=64, df=1.8, persistence=1e-7)
    b = an.smoluchowski("brownian", 0.5, kmax=64, df=1.8)
    assert abs(a.n[0] - b.n[0]) < 1e-5
    with pytest.raises(agglo.InputError, match="mobility"):
        an.smoluchowski("fuchs", 0.5, kmax=64, persistence=1.0, mobility="cube")


def test_smoluchowski_constant_kernel_and_growth_exponent():
    # K = 1 from n_1 = 1: n_k = (1 + T)^-2 (T / (1 + T))^(k-1), T = t/2
    r = an.smoluchowski("constant", 4.0, kmax=200)
    k = np.arange(1, 21)
    np.testing.assert_allclose(r.n[:20], 3.0 ** -2 * (2 / 3) ** (k - 1), rtol=1e-6)
    assert r.lost < 1e-12 and r.steps > 0
    g = an.growth_exponent([1, 2, 4, 8], [3, 6, 12, 24])
    assert g.z == pytest.approx(1, abs=1e-12) and g.points == 4
    with pytest.raises(agglo.InputError, match="kernel"):
        an.smoluchowski("diffusive", 1.0)
    with pytest.raises(agglo.InputError, match="kmax = 1"):
        an.smoluchowski("constant", 1.0, kmax=1)


# issue 46: aggregates as scatterers and aerosol particles (docs/scattering.md)
def test_structure_factor_of_a_dimer_and_fits():
    q = np.geomspace(0.01, 20, 300)
    sq = an.structure_factor([[0, 0, 0], [2.0, 0, 0]], q)
    assert np.allclose(sq.S, 1 + np.sin(2 * q) / (2 * q), rtol=0, atol=1e-12)
    assert not sq.binned and sq.max_error == 0
    rg, used = an.guinier_rg(q, sq.S, 2.0)
    assert rg == pytest.approx(1.0, rel=0.03) and used >= 3  # a dimer: 0.984
    sq2 = an.structure_factor([[0, 0], [2.0, 0]], q)  # 2D: J0
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.normal(size=(700, 3)), axis=0)
    exact = an.structure_factor(x, q, method="exact")
    binned = an.structure_factor(x, q, method="binned", tolerance=1e-3)
    assert binned.binned and binned.max_error <= 1e-3
    assert np.all(np.abs(binned.S - exact.S) <= binned.error + 1e-9)
    assert sq2.S[0] == pytest.approx(2, abs=1e-3)
    with pytest.raises(agglo.InputError, match="method"):
        an.structure_factor(x, q, method="fast")


def test_projected_area_mobility_and_optics(tmp_path):
    pa = an.projected_area([[0, 0, 0]], [1.0], orientations=20, rays=4000, seed=3)
    assert abs(pa.area - np.pi) < 4 * pa.error
    mob = an.mobility_diameters([[0, 0, 0], [2.0, 0, 0]], [1.0, 1.0], knudsen=1.0)
    assert mob.d_continuum == pytest.approx(2 * mob.rm)
    assert mob.d_free_molecular == pytest.approx(2 * mob.rp, rel=1e-6)
    assert mob.d_free_molecular < mob.d_knudsen < mob.d_continuum
    o = an.rdg_fa([[0, 0, 0]], [0.01], 0.5, 1.6 + 0.6j)
    k = 2 * np.pi / 0.5
    L = ((1.6 + 0.6j) ** 2 - 1) / ((1.6 + 0.6j) ** 2 + 2)
    assert o.c_abs == pytest.approx(4 * np.pi * k * 1e-6 * L.imag, rel=1e-12)
    assert o.c_sca == pytest.approx(8 * np.pi / 3 * k ** 4 * 1e-12 * abs(L) ** 2, rel=1e-12)
    an.write_mstm(tmp_path / "a.mstm", [[0, 0, 0], [2.0, 0, 0]], [1.0, 1.0], 0.5, 1.6 + 0.6j)
    assert "number_spheres\n2\n" in (tmp_path / "a.mstm").read_text()
    nat = an.write_ddscat(tmp_path / "a.shape", [[0, 0, 0]], [2.0], 1.0)
    assert nat == sum(1 for i in range(-2, 3) for j in range(-2, 3) for m in range(-2, 3)
                      if i * i + j * j + m * m <= 4)


def test_intensity_of_unequal_radii_exact_or_nan():
    # 800 monomers (3.2e5 pairs, above exact_pairs): auto still sums I exactly for unequal radii
    # (3.2e5 pairs x 50 q <= 2e8); forced binned gives the binned S and I = nan
    rng = np.random.default_rng(4)
    x = np.cumsum(rng.normal(size=(800, 3)), axis=0)
    r = rng.uniform(0.3, 0.6, 800)
    q = np.geomspace(0.01, 3, 50)
    auto = an.structure_factor(x, q, radii=r)
    exact = an.structure_factor(x, q, radii=r, method="exact")
    assert not auto.binned and np.allclose(auto.I, exact.I, rtol=1e-12)
    binned = an.structure_factor(x, q, radii=r, method="binned")
    assert binned.binned and np.all(np.isnan(binned.I))
    assert np.all(np.abs(binned.S - exact.S) <= binned.error + 1e-9)


def test_fractal_structure_factors():
    for s in ("fisher_burford", "exponential", "gaussian"):
        assert an.fractal_structure_factor(s, 1.8, 1e-3) == pytest.approx(1 - 1e-6 / 3, abs=1e-12)
    assert an.fractal_structure_factor("gaussian", 1.8, 1e5) * 1e5 ** 1.8 == pytest.approx(1.0100420, rel=1e-6)  # Gamma(3/2) 1.8^0.9 / Gamma(0.6)
    with pytest.raises(agglo.InputError, match="structure"):
        an.fractal_structure_factor("debye", 1.8, 1.0)
