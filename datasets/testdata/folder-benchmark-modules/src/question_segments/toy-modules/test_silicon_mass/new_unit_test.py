def test_silicon_mass(properties):
    import pytest
    errors = []
    if "atomic_mass" not in properties:
        errors.append("atomic_mass not found in input properties")
    elif not properties["atomic_mass"] == pytest.approx(28.0855, rel=1e-4):
        errors.append(f"atomic_mass: Expected 28.0855 but got {properties['atomic_mass']}")
    if errors:
        errors.append(len(errors))
        errors.append(1)
        return errors
    return "ok"
